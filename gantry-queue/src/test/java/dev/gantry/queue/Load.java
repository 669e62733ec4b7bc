package dev.gantry.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads that repeat a step until stopped, for tests that race queue operations: the first failure of any of them
 * is kept (and ends that thread) for the test to assert on.
 */
final class Load implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    /** Starts a thread named {@code name} that runs {@code step} again and again until {@link #close()}. */
    void repeat(String name, Runnable step) {
        threads.add(Thread.ofPlatform().name(name).start(() -> {
            while (running.get()) {
                try {
                    step.run();
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                    return;
                }
            }
        }));
    }

    /** The first failure of any step, or null. */
    Throwable failure() {
        return failure.get();
    }

    /** Stops every thread after its current step and waits for it. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join();
        }
    }
}
