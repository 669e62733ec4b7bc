package dev.gantry.cli;

import dev.gantry.queue.Queues;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gantry queue replay ID...}: puts dead messages back to ready, each with a fresh allowance of attempts. */
@Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Put dead messages back to ready, each with a fresh allowance of attempts.",
            "Exits 1 if any ID is not a dead message (unknown, past retention, or not dead).",
            QueueCommand.DATABASE})
final class QueueReplayCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "ID", arity = "1..*", description = "Message ids, as `gantry queue dead` lists them.")
    List<Long> ids;

    @Override
    public Integer call() {
        return QueueCommand.run(spec, this::replay);
    }

    private int replay(Queues queues) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int code = 0;
        for (long id : ids) {
            if (queues.replay(id)) {
                out.println("replayed " + id);
            } else {
                err.println(spec.qualifiedName() + ": " + id + " is not a dead message (unknown, past retention, "
                        + "or not dead)");
                code = 1;
            }
        }
        out.flush();
        err.flush();
        return code;
    }
}
