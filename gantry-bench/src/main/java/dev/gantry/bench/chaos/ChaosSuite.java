package dev.gantry.bench.chaos;

import dev.gantry.bench.Suite;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * {@code bench chaos} ({@code bin/gantry chaos [--quick] [--seed N]}): pipelines of mixed shapes through two servers
 * behind a load balancer while a seeded driver kills a server, an agent and the database with SIGKILL and pauses a
 * server with SIGSTOP; then checks that no accepted trigger was lost, no job ran twice to completion, every pipeline
 * ended, and dead tuples and WAL stayed bounded (see {@link ChaosRun}, {@link FaultDriver}, docs/reliability.md).
 * Ends with a {@code RESULT} line; exits 1 if a check failed, keeping the run's directory (logs, trace) for a look.
 */
public final class ChaosSuite implements Suite {
    /** {@code -Dbench.chaos.keep=true} keeps the run's directory also when every check passed. */
    static final String KEEP = "bench.chaos.keep";

    @Override
    public String name() {
        return "chaos";
    }

    @Override
    public String description() {
        return "1,000 pipelines while servers, agents and PostgreSQL are killed and paused; counts what was lost";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        return run(quick, OptionalLong.empty(), out, err);
    }

    @Override
    public int run(boolean quick, OptionalLong seed, PrintStream out, PrintStream err) throws Exception {
        long chosen = seed.orElseGet(() -> ThreadLocalRandom.current().nextLong(1, 1_000_000));
        Path dir = Files.createTempDirectory("gantry-chaos-");
        ChaosResult result = new ChaosRun(quick ? ChaosPlan.quick() : ChaosPlan.full(), chosen, dir, out).run();
        out.println();
        out.printf(Locale.ROOT, "%-4s %-26s %-10s %10s %14s%n", "#", "fault", "target", "at (s)", "recovery (s)");
        for (FaultDriver.Fault f : result.faults()) {
            out.printf(Locale.ROOT, "%-4d %-26s %-10s %10.1f %14s%n", f.number(), f.kind().label, f.target(),
                    f.atMs() / 1000.0, f.recoveryMs() < 0 ? "never" : String.format(Locale.ROOT, "%.1f",
                            f.recoveryMs() / 1000.0));
        }
        out.println(result.resultLine());
        if (!result.passed()) {
            err.println("chaos: a check failed (seed " + chosen + "); logs and trace kept in " + dir);
            return 1;
        }
        if (Boolean.getBoolean(KEEP)) {
            err.println("chaos: logs and trace kept in " + dir);
        } else {
            delete(dir);
        }
        return 0;
    }

    static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is no reason to fail the run
        }
    }
}
