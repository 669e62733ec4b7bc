package dev.gantry.cli;

import dev.gantry.queue.DatabaseHealth;
import dev.gantry.queue.QueueStats;
import dev.gantry.queue.Queues;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gantry queue stats}: each queue's depth and the age of its oldest due message, then the database's health
 * (WAL rate, dead tuples, commit latency). Connects as the server does: {@code GANTRY_DATABASE_URL}, else the
 * embedded PostgreSQL under {@code GANTRY_HOME}.
 */
@Command(name = "stats", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Print each queue's depth and the database's health.",
            QueueCommand.DATABASE})
final class QueueStatsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return QueueCommand.run(spec, queues -> print(spec.commandLine().getOut(), queues));
    }

    private static int print(PrintWriter out, Queues queues) {
        List<QueueStats> stats = queues.stats();
        out.printf("%-24s %10s %10s %10s %18s%n", "QUEUE", "READY", "RUNNING", "DEAD", "OLDEST READY (s)");
        for (QueueStats s : stats) {
            out.printf("%-24s %10d %10d %10d %18.1f%n", s.queue(), s.ready(), s.running(), s.dead(),
                    s.oldestReadyAge().toMillis() / 1000.0);
        }
        if (stats.isEmpty()) {
            out.println("(no messages)");
        }
        DatabaseHealth health = queues.health();
        out.printf("%ndatabase: WAL %.0f bytes/s, dead tuples %d (live %d), commit %.1f ms, live epochs %s%n",
                health.walBytesPerSecond(), health.deadTuples(), health.liveTuples(),
                health.commitLatency().toNanos() / 1e6, queues.liveEpochs());
        out.flush();
        return 0;
    }
}
