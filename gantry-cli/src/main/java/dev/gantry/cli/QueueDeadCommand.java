package dev.gantry.cli;

import dev.gantry.queue.DeadMessage;
import dev.gantry.queue.Queues;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gantry queue dead QUEUE}: the queue's dead messages, the latest to die first, with why each died. */
@Command(name = "dead", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"List a queue's dead messages, the latest to die first, with the reason each died.",
            "Replay one with: gantry queue replay ID",
            QueueCommand.DATABASE})
final class QueueDeadCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "QUEUE", description = "The queue's name, as `gantry queue stats` shows it.")
    String queue;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "Show at most N messages (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    public Integer call() {
        return QueueCommand.run(spec, queues -> print(spec.commandLine().getOut(), queues));
    }

    private int print(PrintWriter out, Queues queues) {
        List<DeadMessage> dead = queues.dead(queue, limit);
        if (dead.isEmpty()) {
            out.println("(no dead messages in " + queue + ")");
        } else {
            out.printf("%-12s %8s  %-24s %s%n", "ID", "ATTEMPTS", "DIED AT", "REASON");
            for (DeadMessage m : dead) {
                out.printf("%-12d %8d  %-24s %s%n", m.id(), m.attempts(), m.diedAt(), firstLine(m.reason()));
            }
        }
        out.flush();
        return 0;
    }

    /** A reason may hold a stack trace or a response body: one line of it fits the table. */
    private static String firstLine(String reason) {
        if (reason == null) {
            return "";
        }
        int end = reason.indexOf('\n');
        return end < 0 ? reason : reason.substring(0, end) + " …";
    }
}
