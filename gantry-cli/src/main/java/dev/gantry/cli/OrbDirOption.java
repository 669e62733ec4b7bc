package dev.gantry.cli;

import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.Limits;
import dev.gantry.config.orb.DirectoryOrbResolver;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code --orb-dir DIR} option of every command that compiles, and the compiler it configures. */
final class OrbDirOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--orb-dir", paramLabel = "DIR",
            description = "Resolve registry orbs from files DIR/<namespace>/<name>@<version>.yml. "
                    + "Without it, a config that uses a registry orb is an error.")
    Path orbDir;

    /** A compiler with the default limits; a missing orb directory is a usage error (exit 2), not a compile error. */
    ConfigCompiler compiler() {
        if (orbDir == null) {
            return ConfigCompiler.create();
        }
        if (!Files.isDirectory(orbDir)) {
            throw new ParameterException(command.commandLine(), "--orb-dir " + orbDir + ": not a directory");
        }
        return ConfigCompiler.create(new DirectoryOrbResolver(orbDir), Limits.DEFAULTS);
    }
}
