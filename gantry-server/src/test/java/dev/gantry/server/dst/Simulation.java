package dev.gantry.server.dst;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Runs seeds of the deterministic simulation ({@link SeedRun}) on one database, one after the other; see
 * docs/simulator.md, "Deterministic simulation testing". Seeds are isolated by project, by virtual time (each run a
 * day after the one before) and by agent ids; every {@link #TRUNCATE_EVERY} runs the tables are emptied so that a
 * run of millions of seeds stays as fast as its start. Single-threaded.
 */
public final class Simulation implements AutoCloseable {
    /** Seeds a plain test run covers. */
    public static final long DEFAULT_SEEDS = 1_000;
    static final int TRUNCATE_EVERY = 500;
    static final int TRACE_TAIL = 40;
    /** How to replay a seed; {@code %d} is the seed. */
    static final String REPLAY = "mvn -B -o -pl gantry-testkit,gantry-queue,gantry-config,gantry-db,"
            + "gantry-scheduler,gantry-server -am verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false "
            + "-Dit.test=OrchestratorSimulationIT -Dfailsafe.failIfNoSpecifiedTests=false -Ddst.seed=%d";

    private final Rig rig;
    private long runs;

    /** @param home where the lease sweeper's notes in job output go */
    public Simulation(DataSource dataSource, Path home) {
        this.rig = new Rig(dataSource, home);
    }

    /** Runs {@code count} seeds from {@code first}, printing progress to {@code out}; throws on the first failure. */
    public void runSeeds(long first, long count, Consumer<String> out) {
        long started = System.nanoTime();
        long lastReport = started;
        long events = 0;
        long calm = 0;
        for (long i = 0; i < count; i++) {
            long seed = first + i;
            try {
                int[] counts = runCounting(seed);
                events += counts[0];
                calm += counts[1];
            } catch (SeedRun.SeedFailure failure) {
                List<String> tail = failure.trace.subList(Math.max(0, failure.trace.size() - TRACE_TAIL),
                        failure.trace.size());
                throw new AssertionError(failure.getMessage() + "\nreplay it: " + REPLAY.formatted(seed)
                        + "\nits last events:\n" + String.join("\n", tail), failure.getCause());
            }
            long now = System.nanoTime();
            if (now - lastReport > 10_000_000_000L || i == count - 1) {
                lastReport = now;
                double seconds = (now - started) / 1e9;
                out.accept(String.format("dst: %d of %d seeds passed in %.1f s, %.1f seeds/s, %.0f events per seed "
                        + "(%.0f calm), %.0f events/s", i + 1, count, seconds, (i + 1) / seconds,
                        events / (double) (i + 1), calm / (double) (i + 1), events / seconds));
            }
        }
    }

    /** Runs {@code seed} once; returns its trace. */
    public List<String> run(long seed) {
        return next(seed, null).run();
    }

    private int[] runCounting(long seed) {
        SeedRun run = next(seed, null);
        run.run();
        return run.events();
    }

    private SeedRun next(long seed, Consumer<String> echo) {
        if (runs > 0 && runs % TRUNCATE_EVERY == 0) {
            rig.truncate();
        }
        return new SeedRun(rig, seed, runs++, echo);
    }

    /** Replays {@code seed}, printing each event as it happens. */
    public void replay(long seed, Consumer<String> out) {
        try {
            next(seed, out).run();
            out.accept("dst: seed " + seed + " passed");
        } catch (SeedRun.SeedFailure failure) {
            throw new AssertionError(failure.getMessage(), failure.getCause());
        }
    }

    @Override
    public void close() {
        rig.close();
    }
}
