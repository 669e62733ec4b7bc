package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.server.ServerSettings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --server} and {@code --token} options of every command that talks to a running server. */
final class ServerOptions {
    static final String URL_VARIABLE = "GANTRY_URL";
    static final String TOKEN_VARIABLE = "GANTRY_TOKEN";

    @Option(names = "--server", paramLabel = "URL",
            description = "The server (default: " + URL_VARIABLE + ", else http://" + ServerSettings.HOST
                    + ":$GANTRY_PORT, else port " + ServerSettings.DEFAULT_PORT + ").")
    URI server;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "The admin API token (default: " + TOKEN_VARIABLE + ", else $GANTRY_HOME/admin-token).")
    String token;

    /** A client for the server these options name, with their token. */
    GantryClient client() {
        return new GantryClient(serverUrl(), token());
    }

    private URI serverUrl() {
        if (server != null) {
            return server;
        }
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return URI.create(url.strip());
        }
        String port = System.getenv(ServerSettings.PORT_VARIABLE);
        return URI.create("http://" + ServerSettings.HOST + ":"
                + (port == null || port.isBlank() ? ServerSettings.DEFAULT_PORT : port.strip()));
    }

    private String token() {
        if (token != null) {
            return token;
        }
        String fromEnvironment = System.getenv(TOKEN_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment.strip();
        }
        Path file = DatabaseSettings.fromEnvironment(System.getenv()).home().resolve("admin-token");
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new GantryClientException("no admin token: pass --token, set " + TOKEN_VARIABLE + ", or start the "
                    + "server so that it writes " + file);
        }
    }
}
