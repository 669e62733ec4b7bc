package dev.gantry.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * Who this server is across restarts: an id kept in {@code $GANTRY_HOME/server-id}, made on the first start. The
 * queue workers carry it in their names ({@code orchestrator@ID}), so a restarted server can release at once the
 * messages its killed predecessor held instead of waiting out their leases. One running server per home.
 */
final class ServerInstance {
    static final String FILE = "server-id";

    private ServerInstance() {
    }

    /** The id in {@code home}, written there first if there is none. */
    static String id(Path home) {
        Path file = home.resolve(FILE);
        try {
            if (Files.exists(file)) {
                String id = Files.readString(file).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            String id = UUID.randomUUID().toString();
            Files.createDirectories(home);
            Path partial = Files.createTempFile(home, FILE, ".partial");
            Files.writeString(partial, id + "\n");
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + file, e);
        }
    }
}
