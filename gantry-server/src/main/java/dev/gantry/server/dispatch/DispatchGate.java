package dev.gantry.server.dispatch;

import dev.gantry.queue.DatabaseHealth;
import dev.gantry.queue.Ramp;
import dev.gantry.queue.SqlStates;
import dev.gantry.queue.Worker;
import dev.gantry.resilience.DistressPause;
import dev.gantry.resilience.TokenBucket;
import dev.gantry.server.agent.TaskKey;
import dev.gantry.server.agent.TaskMatcher;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the server starts new work now (DESIGN.md, invariant 6): agents' claims of tasks, and the workers that plan
 * pipelines and advance workflows. A {@link DistressPause} is fed every {@link DispatchSettings#probeEvery()} from the
 * database's own signals ({@link DatabaseHealth}: commit latency, WAL rate, dead tuples); a signal over its threshold,
 * a probe that fails or one whose commit is still waiting after the latency threshold pauses dispatch, and once every
 * signal has been quiet for {@link DispatchSettings#quietFor()} each kind of work resumes at
 * {@link DispatchSettings#rampFrom()} of {@link DispatchSettings#ratePerSecond()}, rising to full. An operator's hold
 * ({@link DispatchControl}, shared by every server) pauses it too, and a resume may ramp. Triggers are never asked:
 * they are accepted while the database can write, and wait durably in the queue. Answers from memory; thread-safe.
 */
public final class DispatchGate implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DispatchGate.class);

    /** The kinds of work dispatch starts, each ramped by a token bucket of its own. */
    public static final String JOB_STARTS = "job-starts";
    public static final String PLANS = "plans";
    public static final String ADVANCES = "advances";

    private final DispatchSettings settings;
    private final Supplier<DatabaseHealth> probe;
    private final Jdbi jdbi;
    private final InstantSource clock;
    private final DistressPause pause;
    private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loops = Executors.newScheduledThreadPool(2,
            Thread.ofPlatform().name("dispatch-probe-", 0).daemon().factory());
    private volatile Instant probeSince;
    private volatile Instant selfPausedSince;
    private volatile Seen seen = new Seen(null, null, List.of(), null);
    private volatile DispatchControl.Row control = DispatchControl.Row.NONE;

    /** The last probe: when, what it read (null if it failed), what was over its threshold, and why it failed. */
    public record Seen(Instant at, DatabaseHealth health, List<String> distress, String failure) {
    }

    /** Dispatch as an operator sees it; {@code state} is {@code running}, {@code ramping}, {@code paused} or {@code held}. */
    public record State(String state, double allowedFraction, String reason, Instant pausedSince, int selfPauses,
                        Seen seen, DispatchControl.Row control, DistressPause.Settings selfRamp) {
    }

    /**
     * @param probe reads the database's health; {@code Queues::health} in the server
     * @param jdbi  where the operator's {@link DispatchControl} row is
     */
    public DispatchGate(DispatchSettings settings, Supplier<DatabaseHealth> probe, Jdbi jdbi, InstantSource clock) {
        this.settings = settings;
        this.probe = probe;
        this.jdbi = jdbi;
        this.clock = clock;
        this.pause = new DistressPause(settings.pause(), clock);
    }

    /** Starts probing, and reports the gate's state to {@code registry}. */
    public DispatchGate start(MeterRegistry registry) {
        Gauge.builder("gantry.dispatch.allowed.fraction", this, DispatchGate::allowedFraction)
                .description("the share of its full rate at which dispatch starts work now: 0 paused, 1 running")
                .register(registry);
        FunctionCounter.builder("gantry.dispatch.self.pauses", pause, DistressPause::pauses)
                .description("times dispatch paused itself on database distress").register(registry);
        long every = settings.probeEvery().toMillis();
        loops.scheduleWithFixedDelay(this::probeOnce, 0, every, TimeUnit.MILLISECONDS);
        loops.scheduleAtFixedRate(this::watchSlowProbe, every, every, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Reads the signals and the operator's row once: what the probe loop does every period. */
    void probeOnce() {
        probeSince = clock.instant();
        try {
            DatabaseHealth health = probe.get();
            List<String> distress = DistressSignals.of(health, settings);
            // What was seen first, then the pause it causes: a reader never sees the pause without its signals.
            seen = new Seen(clock.instant(), health, distress, null);
            if (!distress.isEmpty()) {
                noteDistress(distress);
            }
            refreshControl();
        } catch (RuntimeException failure) {
            seen = new Seen(clock.instant(), null, List.of("the database could not be probed"), failure.toString());
            // A database out of reach stops dispatch by itself, and once back it should not wait out a quiet period:
            // only one that answers badly (read-only, too slow) is distress.
            if (!SqlStates.unreachable(failure)) {
                noteDistress(List.of("the database could not be probed"));
            }
        } finally {
            probeSince = null;
        }
    }

    /** A probe whose commit has waited past the threshold is distress already, before it returns. */
    private void watchSlowProbe() {
        Instant since = probeSince;
        if (since != null && Duration.between(since, clock.instant()).compareTo(settings.commitLatency()) > 0) {
            noteDistress(List.of("a commit has waited " + Duration.between(since, clock.instant()).toMillis()
                    + " ms (threshold " + settings.commitLatency().toMillis() + " ms)"));
        }
    }

    private void noteDistress(List<String> distress) {
        boolean wasPaused = pause.paused();
        pause.recordDistress();
        if (!wasPaused) {
            selfPausedSince = clock.instant();
            LOG.warn("Dispatch paused itself: {}; it resumes after {} s without distress", String.join("; ", distress),
                    pause.settings().quietFor().toSeconds());
        }
    }

    /** Reads the operator's row again; the routes call it after a change, so it applies here at once. */
    public void refreshControl() {
        DispatchControl.Row row = jdbi.withExtension(DispatchControl.class, DispatchControl::read);
        control = row;
        DistressPause.Settings configured = settings.pause();
        DistressPause.Settings ramp = row.selfRampFrom() == null ? configured : new DistressPause.Settings(
                configured.latencyThreshold(), configured.quietFor(), row.selfRampFrom(),
                Duration.ofSeconds(row.selfRampSeconds()));
        if (!ramp.equals(pause.settings())) {
            pause.setSettings(ramp);
        }
    }

    /** The share of the full rate at which work may start now: the least of the self-pause's and the operator's. */
    public double allowedFraction() {
        DispatchControl.Row row = control;
        if (row.heldAt() != null) {
            return 0;
        }
        double operator = row.resumedAt() == null || row.resumeRampFrom() == null ? 1
                : new Ramp(row.resumeRampFrom(), Duration.ofSeconds(row.resumeRampSeconds()))
                        .fraction(row.resumedAt(), clock.instant());
        return Math.min(pause.allowedFraction(), operator);
    }

    /** Whether one unit of {@code kind} may start now; after it did, call {@link #started}. */
    public boolean mayStart(String kind) {
        double fraction = allowedFraction();
        return fraction >= 1 || fraction > 0 && bucket(kind, fraction).tokens() >= 1;
    }

    /** One unit of {@code kind} started: it spends a token while the rate is ramping. */
    public void started(String kind) {
        double fraction = allowedFraction();
        if (fraction < 1) {
            bucket(kind, fraction).tryTake();
        }
    }

    /** How many of {@code wanted} units of {@code kind} may start now, spending them. */
    public int admit(String kind, int wanted) {
        double fraction = allowedFraction();
        if (fraction >= 1) {
            return wanted;
        }
        return fraction == 0 ? 0 : bucket(kind, fraction).tryTake(wanted);
    }

    /** The gate as a queue worker asks it, for {@code kind}. */
    public Worker.ClaimGate claims(String kind) {
        return wanted -> admit(kind, wanted);
    }

    /**
     * The gate of work that yields to job starts (notification deliveries, usage counts): it claims nothing while
     * dispatch is paused or still ramping, nor while {@code shedding} says the API is refusing low-priority requests,
     * so status updates and the ledger's months wait before any job start does. What waits is done once the server
     * is calm again.
     */
    public Worker.ClaimGate lowPriority(BooleanSupplier shedding) {
        return wanted -> allowedFraction() < 1 || shedding.getAsBoolean() ? 0 : wanted;
    }

    /** {@code matcher}, handing out tasks only while job starts may start. */
    public TaskMatcher jobStarts(TaskMatcher matcher) {
        return (h, claimant) -> {
            if (!mayStart(JOB_STARTS)) {
                return Optional.empty();
            }
            Optional<TaskKey> task = matcher.pick(h, claimant);
            task.ifPresent(t -> started(JOB_STARTS));
            return task;
        };
    }

    /** At the ramp's rate now; at most a second's worth saved up, as a ramp is about pace, not bursts. */
    private TokenBucket bucket(String kind, double fraction) {
        double rate = settings.ratePerSecond() * fraction;
        double burst = Math.max(1, settings.ratePerSecond());
        TokenBucket bucket = buckets.computeIfAbsent(kind, k -> new TokenBucket(rate, burst, clock));
        bucket.setRate(rate, burst);
        return bucket;
    }

    /** Why queued work does not start now, for a waiting job; empty while dispatch runs (ramping or not). */
    public Optional<String> pausedBecause() {
        State state = state();
        return state.allowedFraction() > 0 ? Optional.empty() : Optional.of(state.reason());
    }

    /** Dispatch now, with the reason and the signals behind it. */
    public State state() {
        double fraction = allowedFraction();
        DispatchControl.Row row = control;
        Seen last = seen;
        DistressPause.Settings ramp = pause.settings();
        String state;
        String reason;
        if (row.heldAt() != null) {
            state = "held";
            reason = "an operator holds dispatch since " + row.heldAt().truncatedTo(ChronoUnit.SECONDS) + " ("
                    + row.holdReason() + "); it starts again on POST /api/v2/admin/dispatch/resume";
        } else if (pause.paused()) {
            state = "paused";
            reason = "dispatch paused itself: the database is distressed ("
                    + (last.distress().isEmpty() ? "as last seen" : String.join("; ", last.distress()))
                    + "); it resumes once the database has been quiet for " + ramp.quietFor().toSeconds()
                    + " s, at " + Math.round(ramp.rampFrom() * 100) + " % of its rate";
        } else if (fraction < 1) {
            state = "ramping";
            reason = "dispatch is ramping back up after a pause, at " + Math.round(fraction * 100)
                    + " % of its full rate";
        } else {
            state = "running";
            reason = null;
        }
        Instant pausedSince = "held".equals(state) ? row.heldAt() : "paused".equals(state) ? selfPausedSince : null;
        return new State(state, fraction, reason, pausedSince, pause.pauses(), last, row, ramp);
    }

    /** Holds dispatch on every server (the row is shared); {@code reason} says why to whoever looks. */
    public void hold(String reason) {
        jdbi.useExtension(DispatchControl.class, c -> c.hold(now(), reason));
        refreshControl();
    }

    /** Ends an operator's hold on every server, rising from {@code ramp.from()} to full over its length. */
    public void resume(Ramp ramp) {
        jdbi.useExtension(DispatchControl.class, c -> c.resume(now(), (float) ramp.from(),
                (int) ramp.over().toSeconds()));
        refreshControl();
    }

    /** The ramp the self-pause resumes with, on every server. */
    public void setSelfRamp(Ramp ramp) {
        jdbi.useExtension(DispatchControl.class, c -> c.setSelfRamp((float) ramp.from(),
                (int) ramp.over().toSeconds()));
        refreshControl();
    }

    private OffsetDateTime now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    @Override
    public void close() {
        loops.shutdownNow();
    }
}
