package dev.gantry.cli;

import dev.gantry.server.ServerSettings;
import java.net.URI;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code --host H}, {@code --port N} and {@code --orb-registry URL} options of the commands that start a server. */
final class ListenOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--host", paramLabel = "H",
            description = "The address to listen on; 0.0.0.0 for every interface, so that agents on other machines "
                    + "can reach the server. Default: " + ServerSettings.HOST_VARIABLE + ", else "
                    + ServerSettings.HOST + " (this machine only).")
    String host;

    @Option(names = "--port", paramLabel = "N",
            description = "HTTP port; 0 picks a free one. Default: " + ServerSettings.PORT_VARIABLE + ", else "
                    + ServerSettings.DEFAULT_PORT + ".")
    Integer port;

    @Option(names = "--orb-registry", paramLabel = "URL",
            description = "An orb registry asked for the orbs the server's store lacks, in CircleCI's GraphQL shape, "
                    + "e.g. https://circleci.com/graphql-unstable; what it gives is kept. Default: "
                    + ServerSettings.ORB_REGISTRY_VARIABLE + ", else none.")
    URI orbRegistry;

    /**
     * {@code settings} with the host, port and orb registry asked for, if any.
     *
     * @throws ParameterException (exit 2) for a value outside its rule
     */
    ServerSettings applyTo(ServerSettings settings) {
        if (host != null && !ServerSettings.validHost(host)) {
            throw new ParameterException(command.commandLine(), "--host " + ServerSettings.HOST_RULE + ", got "
                    + host);
        }
        if (port != null && !ServerSettings.validPort(port)) {
            throw new ParameterException(command.commandLine(), "--port " + ServerSettings.PORT_RULE + ", got "
                    + port);
        }
        if (orbRegistry != null && !ServerSettings.validRegistry(orbRegistry)) {
            throw new ParameterException(command.commandLine(), "--orb-registry " + ServerSettings.REGISTRY_RULE
                    + ", got " + orbRegistry);
        }
        ServerSettings withHost = host == null ? settings : settings.withHost(host);
        ServerSettings withPort = port == null ? withHost : withHost.withPort(port);
        return orbRegistry == null ? withPort : withPort.withOrbRegistry(orbRegistry);
    }
}
