package dev.gantry.cli;

import dev.gantry.queue.DatabaseHealth;
import dev.gantry.queue.QueueControl;
import dev.gantry.queue.QueueLimits;
import dev.gantry.queue.QueueStats;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Ramp;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gantry queue stats}: each queue's depth and the age of its oldest due message, what an operator has set on
 * a queue (paused, limits, a ramp under way), then the database's health (WAL rate, dead tuples, commit latency).
 * Connects as {@link QueueCommand#run} says.
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
        for (QueueControl control : queues.controls()) {
            describe(control, Instant.now()).ifPresent(setting -> out.printf("%s: %s%n", control.queue(), setting));
        }
        DatabaseHealth health = queues.health();
        out.printf("%ndatabase: WAL %.0f bytes/s, dead tuples %d (live %d), commit %.1f ms, live epochs %s%n",
                health.walBytesPerSecond(), health.deadTuples(), health.liveTuples(),
                health.commitLatency().toNanos() / 1e6, queues.liveEpochs());
        out.flush();
        return 0;
    }

    /** What an operator has set on a queue, or empty when it runs as by default. */
    static Optional<String> describe(QueueControl control, Instant now) {
        List<String> parts = new ArrayList<>();
        if (control.paused()) {
            parts.add("paused");
        }
        QueueLimits limits = control.limits();
        if (limits.maxRunning() != null) {
            parts.add("at most " + limits.maxRunning() + " running");
        }
        if (limits.maxPerSecond() != null) {
            parts.add(String.format(Locale.ROOT, "at most %.1f claims/s", limits.maxPerSecond()));
        }
        // A ramp scales the limits, so without limits, or once it is over, there is nothing to say.
        Ramp ramp = control.ramp();
        Optional<Instant> rampEnds = control.resumedAt().map(resumed -> resumed.plus(ramp.over()));
        boolean limited = limits.maxRunning() != null || limits.maxPerSecond() != null;
        if (!control.paused() && limited && rampEnds.isPresent() && rampEnds.get().isAfter(now)) {
            parts.add(String.format(Locale.ROOT, "ramping up from %.0f %% of its limits since %s, full at %s",
                    ramp.from() * 100, control.resumedAt().get(), rampEnds.get()));
        }
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", parts));
    }
}
