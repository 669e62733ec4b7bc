package dev.gantry.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gantry queue}: looks at the durable queues. A subcommand is required. */
@Command(name = "queue", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Inspect Gantry's durable queues.", subcommands = {QueueStatsCommand.class})
final class QueueCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }
}
