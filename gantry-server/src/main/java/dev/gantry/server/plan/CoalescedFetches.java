package dev.gantry.server.plan;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fetches of one mirror, coalesced (single-flight): at most one runs at a time, and a caller that needs the
 * repository as of no earlier than an instant T is served by any fetch that <em>started</em> after T, since such a
 * fetch saw every push made before T. So a burst of plans for one project waits for one fetch in flight, and plans
 * that waited in a queue behind a fetch need none of their own.
 *
 * <p>A caller no fetch serves starts one itself and runs it on its own thread; a fetch it starts always serves it.
 * When a fetch fails, every caller it was serving gets a {@link ConfigFetchException#transientFailure() transient}
 * failure with its message; the next caller starts a new fetch (failures are not remembered). Thread-safe.
 */
final class CoalescedFetches {
    /** One fetch of the mirror; runs on the calling thread. */
    @FunctionalInterface
    interface Fetch {
        void run() throws ConfigFetchException, InterruptedException;
    }

    /** A fetch started at {@code started}; {@code done} completes when it ends, exceptionally if it failed. */
    private record Flight(Instant started, CompletableFuture<Void> done) {
        boolean serves(Instant notBefore) {
            return started.isAfter(notBefore) && !done.isCompletedExceptionally();
        }
    }

    private final InstantSource clock;
    private final ReentrantLock lock = new ReentrantLock();
    /** The fetch started last, running or finished; null before the first. Guarded by {@link #lock}. */
    private Flight latest;

    CoalescedFetches(InstantSource clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Returns once a fetch that started after {@code notBefore} has succeeded: at once if one has, after waiting if
     * one is running, else after running {@code fetch} on this thread (first waiting for a fetch in flight that
     * started too early, so that two never run at once).
     *
     * @throws ConfigFetchException the fetch that was to serve this caller failed (always transient)
     * @throws InterruptedException while waiting or fetching
     */
    void awaitFetchSince(Instant notBefore, Fetch fetch) throws InterruptedException {
        while (true) {
            Flight flight;
            boolean mine = false;
            lock.lock();
            try {
                flight = latest;
                if (flight == null || (flight.done().isDone() && !flight.serves(notBefore))) {
                    flight = new Flight(clock.instant(), new CompletableFuture<>());
                    latest = flight;
                    mine = true;
                }
            } finally {
                lock.unlock();
            }
            if (mine) {
                run(flight, fetch);
                return;
            }
            boolean servesMe = flight.started().isAfter(notBefore);
            try {
                flight.done().get();
            } catch (ExecutionException e) {
                if (servesMe) {
                    throw ConfigFetchException.transientFailure(failureMessage(e.getCause()));
                }
                // A fetch too early for this caller failed; the next round starts a new one.
            }
            if (servesMe) {
                return;
            }
        }
    }

    private static void run(Flight flight, Fetch fetch) throws InterruptedException {
        try {
            fetch.run();
            flight.done().complete(null);
        } catch (InterruptedException | RuntimeException | Error e) {
            // Complete before rethrowing: callers waiting for this fetch must never wait forever.
            flight.done().completeExceptionally(e);
            throw e;
        }
    }

    private static String failureMessage(Throwable cause) {
        return switch (cause) {
            case ConfigFetchException e -> e.getMessage();
            case InterruptedException e -> "the fetch of the repository was interrupted (the server is stopping?)";
            default -> "fetching the repository failed: " + cause;
        };
    }
}
