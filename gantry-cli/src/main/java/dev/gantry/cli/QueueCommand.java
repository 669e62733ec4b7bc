package dev.gantry.cli;

import dev.gantry.db.Database;
import dev.gantry.db.DatabaseException;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.queue.QueueException;
import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.util.function.ToIntFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gantry queue}: looks at the durable queues, replays dead messages, pauses, resumes and limits queues. A
 * subcommand is required.
 */
@Command(name = "queue", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Inspect Gantry's durable queues, replay dead messages, pause, resume and limit queues.",
        subcommands = {QueueStatsCommand.class, QueueDeadCommand.class, QueueReplayCommand.class,
            QueueControlCommands.Pause.class, QueueControlCommands.Resume.class, QueueControlCommands.Limit.class})
final class QueueCommand implements Runnable {
    /** The last line of each subcommand's description. */
    static final String DATABASE = "Uses GANTRY_DATABASE_URL, else the embedded PostgreSQL under GANTRY_HOME "
            + "(default ~/.gantry): the one a running gantry up serves, or one started for this command.";

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /**
     * Runs {@code body} on the queues of the database the server uses ({@code GANTRY_DATABASE_URL}, else the embedded
     * PostgreSQL under {@code GANTRY_HOME}, the running server's if one holds it) and returns its exit code; 1, with
     * the reason, when the database cannot be reached, 2 for a bad argument.
     */
    static int run(CommandSpec command, ToIntFunction<Queues> body) {
        DatabaseSettings settings = DatabaseSettings.fromEnvironment(System.getenv());
        try (Database db = Database.startOrAttach(settings);
             Queues queues = Queues.start(db.getDataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            return body.applyAsInt(queues);
        } catch (DatabaseException | QueueException | IllegalArgumentException e) {
            PrintWriter err = command.commandLine().getErr();
            err.println(command.qualifiedName() + ": " + e.getMessage());
            err.flush();
            return e instanceof IllegalArgumentException ? 2 : 1;
        }
    }
}
