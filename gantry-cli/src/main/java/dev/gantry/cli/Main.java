package dev.gantry.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Entry point of {@code gantry.jar}: runs {@link GantryCommand} and exits with its code. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        CommandLine cli = GantryCommand.commandLine();
        // Plans and diagnostics quote config text; never let a POSIX locale turn it into '?'.
        cli.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
        cli.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        int code = cli.execute(args);
        cli.getOut().flush();
        cli.getErr().flush();
        System.exit(code);
    }
}
