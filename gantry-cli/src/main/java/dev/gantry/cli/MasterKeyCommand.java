package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gantry master-key rotate}: asks a running server to make a new master key, re-wrap every data key with it
 * and drop the old keys from its key file, while it goes on serving. Exits 0 when done, 1 when the server refused,
 * 2 when it could not ask.
 */
@Command(name = "master-key", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "The master key that wraps the keys of stored secrets.",
        subcommands = {MasterKeyCommand.Rotate.class})
final class MasterKeyCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "rotate", mixinStandardHelpOptions = true,
            description = {"Make a new master key, re-wrap every data key with it and retire the old key, on a "
                    + "running server (no restart, no secret re-entered).",
                "With several servers on one database, copy the new key file to the others afterwards: they read "
                        + "it again when they meet the new key's id."})
    static final class Rotate extends ServerCall {
        @Override
        int call(GantryClient client, PrintWriter out) {
            GantryClient.Answer answer = client.post("/api/v2/admin/master-key/rotate", Map.of());
            if (!answer.ok()) {
                return fail(1, answer.message());
            }
            out.println("master key " + answer.json().path("master_key_id").asText() + " now wraps "
                    + answer.json().path("data_keys_rewrapped").asInt() + " data key(s); retired "
                    + answer.json().path("retired"));
            return 0;
        }
    }
}
