package dev.gantry.cli;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that asks a running server (the orb, user and master-key commands): the server options, and the exit
 * codes they share: 0 when it did what it says, 1 when the server refused ({@link #fail}), 2 when it could not ask.
 */
abstract class ServerCall implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ServerOptions server;

    @Override
    public Integer call() {
        try {
            int code = call(server.client(), spec.commandLine().getOut());
            spec.commandLine().getOut().flush();
            return code;
        } catch (GantryClientException | IOException e) {
            return fail(2, e.getMessage());
        }
    }

    abstract int call(GantryClient client, PrintWriter out) throws IOException;

    /** Says {@code message} on stderr after the command's name, e.g. {@code gantry orb publish: …}. */
    int fail(int code, String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + message);
        err.flush();
        return code;
    }
}
