package dev.gantry.server.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.gantry.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CoalescedFetchesTest {
    final ManualClock clock = new ManualClock();
    final CoalescedFetches fetches = new CoalescedFetches(clock);
    final ExecutorService threads = Executors.newCachedThreadPool();
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        threads.shutdownNow();
    }

    @Test
    void concurrent_callers_triggered_before_a_fetch_started_all_wait_for_that_one_fetch() throws Exception {
        Instant triggered = clock.instant();
        clock.advance(Duration.ofMillis(1));
        Future<?> first = submit(triggered, this::blockedFetch);
        await().until(() -> started.get() == 1);

        List<Future<?>> others = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            others.add(submit(triggered, this::blockedFetch));
        }
        Thread.sleep(100);
        assertThat(others).as("waiting for the fetch in flight").noneMatch(Future::isDone);
        release.countDown();

        first.get();
        for (Future<?> other : others) {
            other.get();
        }
        assertThat(started).hasValue(1);
    }

    @Test
    void a_caller_triggered_after_the_fetch_in_flight_started_gets_a_fetch_of_its_own_after_it() throws Exception {
        Future<?> first = submit(clock.instant().minusSeconds(1), this::blockedFetch);
        await().until(() -> started.get() == 1);
        clock.advance(Duration.ofSeconds(1));
        Instant triggeredLater = clock.instant();
        clock.advance(Duration.ofMillis(1));

        CompletableFuture<Void> later = CompletableFuture.runAsync(() -> call(triggeredLater), threads);
        Thread.sleep(100);
        assertThat(later).as("waits for the fetch in flight to end before starting its own").isNotDone();
        assertThat(started).hasValue(1);
        release.countDown();

        first.get();
        later.get();
        assertThat(started).hasValue(2);
        assertThat(mostAtOnce).as("fetches of one mirror never overlap").hasValue(1);
    }

    @Test
    void a_finished_fetch_serves_callers_triggered_before_it_started_and_no_one_later() throws Exception {
        release.countDown();
        Instant beforeFetch = clock.instant();
        clock.advance(Duration.ofMillis(1));
        fetches.awaitFetchSince(beforeFetch, this::blockedFetch);
        Instant fetchStart = clock.instant();

        fetches.awaitFetchSince(beforeFetch, this::blockedFetch);
        assertThat(started).as("served by the finished fetch").hasValue(1);

        fetches.awaitFetchSince(fetchStart, this::blockedFetch);
        assertThat(started).as("triggered at the instant the fetch started: not served by it").hasValue(2);
    }

    @Test
    void a_failed_fetch_fails_the_callers_it_served_and_the_next_caller_fetches_again() throws Exception {
        Instant triggered = clock.instant().minusSeconds(1);
        Future<?> failing = submit(triggered, () -> {
            blockedFetch();
            throw ConfigFetchException.transientFailure("fetching the repository failed: host unreachable");
        });
        await().until(() -> started.get() == 1);
        Future<?> waiting = submit(triggered, this::blockedFetch);
        Thread.sleep(50);
        release.countDown();

        assertThatThrownBy(() -> failing.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(ConfigFetchException.class);
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ConfigFetchException.class)
                .hasMessage("fetching the repository failed: host unreachable")
                .matches(e -> ((ConfigFetchException) e).transientFailure(), "is transient");

        fetches.awaitFetchSince(triggered, this::blockedFetch);
        assertThat(started).hasValue(2);
    }

    @Test
    void an_interrupted_fetch_fails_its_waiters_as_transient() throws Exception {
        Instant triggered = clock.instant().minusSeconds(1);
        Future<?> interrupted = submit(triggered, this::blockedFetch);
        await().until(() -> started.get() == 1);
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> call(triggered), threads);
        Thread.sleep(50);

        interrupted.cancel(true);

        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(ConfigFetchException.class).hasMessageContaining("interrupted");
    }

    /** A fetch that counts itself and blocks until the test releases it. */
    private void blockedFetch() throws InterruptedException {
        started.incrementAndGet();
        mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
            release.await();
        } finally {
            running.decrementAndGet();
        }
    }

    private Future<?> submit(Instant notBefore, CoalescedFetches.Fetch fetch) {
        return threads.submit(() -> {
            fetches.awaitFetchSince(notBefore, fetch);
            return null;
        });
    }

    private void call(Instant notBefore) {
        try {
            fetches.awaitFetchSince(notBefore, this::blockedFetch);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
