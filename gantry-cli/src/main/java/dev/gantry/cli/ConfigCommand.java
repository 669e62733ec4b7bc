package dev.gantry.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code gantry config}: groups the commands that read a config file without running anything. */
@Command(name = "config", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Check and compile CircleCI-style config files.",
        subcommands = {ConfigValidateCommand.class, ConfigProcessCommand.class})
final class ConfigCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }
}
