package dev.gantry.cli;

import dev.gantry.server.ServerSettings;
import dev.gantry.server.TlsSettings;
import dev.gantry.server.project.RepositoryPolicy;
import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code --host H}, {@code --port N}, {@code --orb-registry URL} and HTTPS ({@code --https-port N --tls-cert FILE
 * --tls-key FILE}) options of the commands that start a server.
 */
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

    @Option(names = "--allow-local-repositories",
            description = "Let projects name directories on the server as their repositories (refused by default, "
                    + "so that a project cannot read the server's disk). Default: "
                    + RepositoryPolicy.LOCAL_VARIABLE + ", else false.")
    Boolean allowLocalRepositories;

    @Option(names = "--allow-private-networks",
            description = "Let projects name repositories on loopback, link-local and private networks, and plain "
                    + "http:// (refused by default, so that a project cannot probe the server's networks). Default: "
                    + RepositoryPolicy.PRIVATE_VARIABLE + ", else false.")
    Boolean allowPrivateNetworks;

    @Option(names = "--https-port", paramLabel = "N",
            description = "Also serve HTTPS on this port (0: a free one), with --tls-cert and --tls-key; for clients "
                    + "that only speak HTTPS, such as the continuation orb. Default: "
                    + TlsSettings.PORT_VARIABLE + ", else HTTP only.")
    Integer httpsPort;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "PEM file of the HTTPS certificate and its chain. Default: "
                    + TlsSettings.CERTIFICATE_VARIABLE + ".")
    Path tlsCertificate;

    @Option(names = "--tls-key", paramLabel = "FILE",
            description = "PEM file of the certificate's private key (unencrypted PKCS #8). Default: "
                    + TlsSettings.KEY_VARIABLE + ".")
    Path tlsKey;

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
        ServerSettings withRegistry = orbRegistry == null ? withPort : withPort.withOrbRegistry(orbRegistry);
        RepositoryPolicy asked = withRegistry.repositories();
        ServerSettings withRepositories = withRegistry.withRepositories(new RepositoryPolicy(
                allowLocalRepositories != null ? allowLocalRepositories : asked.localRepositories(),
                allowPrivateNetworks != null ? allowPrivateNetworks : asked.privateNetworks()));
        return withTls(withRepositories);
    }

    /** Lets projects name any repository, as a single-user server on a workstation does ({@code gantry up}). */
    void allowAnyRepository() {
        allowLocalRepositories = true;
        allowPrivateNetworks = true;
    }

    /** The HTTPS options, all three or none, over what the environment said. */
    private ServerSettings withTls(ServerSettings settings) {
        if (httpsPort == null && tlsCertificate == null && tlsKey == null) {
            return settings;
        }
        if (httpsPort == null || tlsCertificate == null || tlsKey == null) {
            throw new ParameterException(command.commandLine(),
                    "--https-port, --tls-cert and --tls-key go together: give all three");
        }
        if (!ServerSettings.validPort(httpsPort)) {
            throw new ParameterException(command.commandLine(), "--https-port " + ServerSettings.PORT_RULE
                    + ", got " + httpsPort);
        }
        return settings.withTls(new TlsSettings(httpsPort, tlsCertificate, tlsKey));
    }
}
