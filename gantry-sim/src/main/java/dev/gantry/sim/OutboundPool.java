package dev.gantry.sim;

import dev.gantry.resilience.Bulkhead;
import dev.gantry.resilience.CircuitBreaker;
import dev.gantry.resilience.RetryBudget;
import dev.gantry.sim.Resilience.Endpoint;
import dev.gantry.sim.Resilience.Outbound;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;

/**
 * The server's shared pool of workers for calls out (job starts to agents, calls to external endpoints), under
 * Gantry's policies (a {@link Bulkhead} share per destination, a {@link CircuitBreaker} and budgeted retries per
 * endpoint) or the baseline's (one pool, first come first served, {@link FixedRetries}). Waiting calls are served in
 * the order they queued; one that waits past the deadline fails. Called from the event loop only.
 */
final class OutboundPool {
    static final String AGENTS = "agents";

    private final class Call {
        final String destination;
        final Endpoint endpoint; // null for a job start
        final Runnable onDone;
        final Runnable onFailed;
        int attempts;
        Instant queuedAt;

        Call(String destination, Endpoint endpoint, Runnable onDone, Runnable onFailed) {
            this.destination = destination;
            this.endpoint = endpoint;
            this.onDone = onDone;
            this.onFailed = onFailed;
        }
    }

    /** What happened to one destination's calls. */
    private static final class Counts {
        long calls;
        long attempts;
        long succeeded;
        long failed;
        long expired;
        long shortCircuited;
        int held;
        int maxHeld;
        int windowMax;
    }

    private final Outbound spec;
    private final boolean gantry;
    private final InstantSource clock;
    private final BiConsumer<Instant, Runnable> schedule;
    private final Instant start;
    private final Bulkhead bulkhead;
    private final Map<String, CircuitBreaker> breakers = new LinkedHashMap<>();
    private final Map<String, Retries> retries = new LinkedHashMap<>();
    private final Map<String, Counts> counts = new LinkedHashMap<>();
    private final LinkedHashSet<Call> waiting = new LinkedHashSet<>();
    private final List<long[]> startLatencies = new ArrayList<>(); // {millis, 1 if during a failure}
    private final List<Result.PoolSample> samples = new ArrayList<>();
    private final Instant warmedUp;
    private int busy;

    OutboundPool(Outbound spec, boolean gantry, Resilience.GantrySettings g, Resilience.BaselineRetries b,
                 Duration warmUp, InstantSource clock, BiConsumer<Instant, Runnable> schedule,
                 SplittableRandom random) {
        this.spec = spec;
        this.gantry = gantry;
        this.clock = clock;
        this.schedule = schedule;
        this.start = clock.instant();
        this.warmedUp = start.plus(warmUp);
        this.bulkhead = gantry ? Bulkhead.withShare(spec.workers(), spec.share()) : null;
        counts.put(AGENTS, new Counts());
        for (Endpoint e : spec.endpoints()) {
            counts.put(e.name(), new Counts());
            breakers.put(e.name(), new CircuitBreaker(g.breakerFailures(), g.breakerOpenFor(), clock));
            retries.put(e.name(), gantry
                    ? new BudgetedRetries(new RetryBudget(g.budgetRatio(), g.budgetBurst()), g.backoff(),
                            random.split())
                    : new FixedRetries(b.attempts(), b.every()));
        }
    }

    /** Calls the agent to start a job queued at {@code enqueuedAt}; then {@code onStarted}, or {@code onFailed}. */
    void startJob(Instant enqueuedAt, Runnable onStarted, Runnable onFailed) {
        Call call = new Call(AGENTS, null, () -> {
            Duration t = Duration.between(start, enqueuedAt);
            boolean duringFailure = spec.endpoints().stream().anyMatch(e -> e.failingAt(t));
            if (!enqueuedAt.isBefore(warmedUp)) {
                startLatencies.add(new long[] {Duration.between(enqueuedAt, clock.instant()).toMillis(),
                    duringFailure ? 1 : 0});
            }
            onStarted.run();
        }, onFailed);
        counts.get(AGENTS).calls++;
        submit(call);
    }

    /** One new call to {@code endpoint}, made by the server for its own reasons (a notification, a provider call). */
    void callEndpoint(Endpoint endpoint) {
        Call call = new Call(endpoint.name(), endpoint, () -> { }, () -> { });
        counts.get(endpoint.name()).calls++;
        retries.get(endpoint.name()).firstAttempt();
        submit(call);
    }

    private void submit(Call call) {
        if (gantry && call.endpoint != null && !breakers.get(call.destination).tryCall()) {
            // The breaker is open: the call is not made; a real notifier keeps it for replay.
            counts.get(call.destination).shortCircuited++;
            call.onFailed.run();
            return;
        }
        call.queuedAt = clock.instant();
        waiting.add(call);
        Instant queuedAt = call.queuedAt;
        schedule.accept(queuedAt.plus(spec.deadline()), () -> {
            if (call.queuedAt == queuedAt && waiting.remove(call)) {
                counts.get(call.destination).expired++;
                finishedAttempt(call, false);
            }
        });
        dispatch();
    }

    /** Gives free workers to the oldest waiting calls their destination's share allows. */
    private void dispatch() {
        Iterator<Call> it = waiting.iterator();
        while (busy < spec.workers() && it.hasNext()) {
            Call call = it.next();
            if (gantry && !bulkhead.tryAcquire(call.destination)) {
                continue;
            }
            it.remove();
            run(call);
        }
    }

    private void run(Call call) {
        busy++;
        Counts c = counts.get(call.destination);
        c.attempts++;
        c.held++;
        c.maxHeld = Math.max(c.maxHeld, c.held);
        c.windowMax = Math.max(c.windowMax, c.held);
        Duration t = Duration.between(start, clock.instant());
        boolean ok = call.endpoint == null || !call.endpoint.failingAt(t);
        Duration length = call.endpoint == null ? spec.dispatch()
                : call.endpoint.hangingAt(t) ? call.endpoint.timeout() : call.endpoint.latency();
        schedule.accept(clock.instant().plus(length), () -> {
            busy--;
            c.held--;
            if (gantry) {
                bulkhead.release(call.destination);
            }
            if (call.endpoint != null && gantry) {
                if (ok) {
                    breakers.get(call.destination).recordSuccess();
                } else {
                    breakers.get(call.destination).recordFailure();
                }
            }
            finishedAttempt(call, ok);
            dispatch();
        });
    }

    private void finishedAttempt(Call call, boolean ok) {
        Counts c = counts.get(call.destination);
        call.attempts++;
        if (ok) {
            c.succeeded++;
            call.onDone.run();
            return;
        }
        Optional<Duration> retry = call.endpoint == null ? Optional.empty()
                : retries.get(call.destination).next(call.attempts);
        if (retry.isPresent()) {
            schedule.accept(clock.instant().plus(retry.get()), () -> submit(call));
        } else {
            c.failed++;
            call.onFailed.run();
        }
    }

    /** Closes a sample window: the most workers each destination held in it. */
    void sample(Instant now) {
        long t = Duration.between(start, now).toSeconds();
        counts.forEach((name, c) -> {
            samples.add(new Result.PoolSample(t, name, c.windowMax));
            c.windowMax = c.held;
        });
    }

    Result.PoolSummary summary() {
        List<Result.DestinationSummary> destinations = new ArrayList<>();
        counts.forEach((name, c) -> destinations.add(new Result.DestinationSummary(name, c.calls, c.attempts,
                c.succeeded, c.failed, c.expired, c.shortCircuited, c.maxHeld, (double) c.maxHeld / spec.workers())));
        long[] during = startLatencies.stream().filter(l -> l[1] == 1).mapToLong(l -> l[0]).sorted().toArray();
        long[] outside = startLatencies.stream().filter(l -> l[1] == 0).mapToLong(l -> l[0]).sorted().toArray();
        return new Result.PoolSummary(spec.workers(), destinations, mean(outside), Metrics.percentile(outside, 95),
                mean(during), Metrics.percentile(during, 95), samples);
    }

    private static double mean(long[] millis) {
        return millis.length == 0 ? 0 : Arrays.stream(millis).average().orElse(0) / 1000.0;
    }
}
