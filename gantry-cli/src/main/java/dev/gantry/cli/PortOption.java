package dev.gantry.cli;

import dev.gantry.server.ServerSettings;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code --port N} option of the commands that start a server. */
final class PortOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--port", paramLabel = "N",
            description = "HTTP port on " + ServerSettings.HOST + "; 0 picks a free one. Default: "
                    + ServerSettings.PORT_VARIABLE + ", else " + ServerSettings.DEFAULT_PORT + ".")
    Integer port;

    /**
     * The port asked for, or null to take it from the environment.
     *
     * @throws ParameterException (exit 2) for a port outside the rule
     */
    Integer port() {
        if (port != null && !ServerSettings.validPort(port)) {
            throw new ParameterException(command.commandLine(), "--port " + ServerSettings.PORT_RULE + ", got "
                    + port);
        }
        return port;
    }
}
