package dev.gantry.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code gantry} command. On its own it only explains itself: a subcommand is required. */
@Command(name = "gantry", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Gantry, a self-hosted CI/CD server for CircleCI-style configs.",
        subcommands = {UpCommand.class, ServerCommand.class, AgentCommand.class, RunCommand.class,
            ConfigCommand.class, OrbCommand.class, UserCommand.class, MasterKeyCommand.class, QueueCommand.class,
            UsageCommand.class,
            SimCommand.class, HelpCommand.class})
public final class GantryCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** A fresh command tree; each call returns a new one, so tests and callers never share parsed state. */
    public static CommandLine commandLine() {
        return new CommandLine(new GantryCommand());
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** The version written into the jar's manifest at build time; classes run outside the jar have none. */
    static final class ManifestVersion implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = GantryCommand.class.getPackage().getImplementationVersion();
            return new String[] {"gantry " + (version == null ? "(development build, not run from gantry.jar)" : version)};
        }
    }
}
