package dev.gantry.agent.executor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The {@code circleci} command jobs find on their {@code PATH} ({@code circleci tests glob|split|run},
 * {@code circleci step halt}): a portable shell script shipped in the agent's jar, copied into each task's
 * {@code bin} directory. It reads the job's test timings from {@code $CIRCLE_INTERNAL_TASK_DATA/timings.tsv} and
 * leaves {@code halt} in {@code $CIRCLE_INTERNAL_CONTROL_DIR}.
 */
public final class InCircleci {
    static final String RESOURCE = "/dev/gantry/agent/executor/circleci";

    private InCircleci() {
    }

    /** Copies the command into {@code bin} (read and execute for all), also as {@code circleci-agent}. */
    public static void install(Path bin) throws IOException {
        try (InputStream script = InCircleci.class.getResourceAsStream(RESOURCE)) {
            if (script == null) {
                throw new IOException("the agent's jar lacks " + RESOURCE);
            }
            Path target = bin.resolve("circleci");
            Files.copy(script, target, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("r-xr-xr-x"));
            // CircleCI's documentation spells the halt as `circleci-agent step halt`, and configs copy it
            Files.createSymbolicLink(bin.resolve("circleci-agent"), Path.of("circleci"));
        }
    }
}
