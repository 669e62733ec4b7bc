package dev.gantry.cli;

import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.FleetConfigException;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.fleet.Autoscaling;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code --fleet FILE} option: autoscale the clusters a fleet file describes with local agent processes. */
final class FleetOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--fleet", paramLabel = "FILE",
            description = "Autoscale the fleet this file describes (clusters of ranked instance types, minimum and "
                    + "maximum sizes; docs/scheduler.md), starting each instance as a local agent process.")
    Path file;

    @Option(names = "--executor", paramLabel = "KIND", defaultValue = "docker",
            description = "Where the local agents run jobs: docker (each job in its own containers, through "
                    + "DOCKER_HOST or the Docker or Podman socket; the default) or shell (on this host, not "
                    + "isolated: only for a trusted single-user set-up). Default: ${DEFAULT-VALUE}.")
    String executor;

    /**
     * The fleet file's configuration, else {@code otherwise} (null: no autoscaling).
     *
     * @throws ParameterException (exit 2) for a file that cannot be read or has errors, each at its line and column
     */
    FleetConfig config(FleetConfig otherwise) {
        if (file == null) {
            return otherwise;
        }
        try {
            return FleetConfig.parse(file.toString(), Files.readString(file));
        } catch (IOException e) {
            throw new ParameterException(command.commandLine(), "--fleet: cannot read " + file + ": " + e);
        } catch (FleetConfigException e) {
            throw new ParameterException(command.commandLine(), e.getMessage());
        }
    }

    /**
     * Autoscaling {@code config} with local agents of the server in {@code home} running jobs on this option's
     * executor; null when config is null.
     */
    Autoscaling.Setup local(FleetConfig config, Path home) {
        return config == null ? null : new Autoscaling.Setup(config,
                server -> LocalAgents.provider(server, home.resolve(TokenKind.AGENT.fileName()), home, executor));
    }
}
