package dev.gantry.queue;

import java.util.ArrayList;
import java.util.List;

/**
 * The workers {@link Shards#startWorkers} started, one per shard, in shard order. {@link #close()} stops them all at
 * once (each waits for its own messages in flight), so the slowest shard, not the sum of them, bounds the wait.
 * Thread-safe.
 */
public final class ShardWorkers implements AutoCloseable {
    private final List<Worker> workers;

    ShardWorkers(List<Worker> workers) {
        this.workers = List.copyOf(workers);
    }

    /** The worker of each shard, in shard order. */
    public List<Worker> workers() {
        return workers;
    }

    /** Messages being handled now, over all shards. */
    public int inFlight() {
        return workers.stream().mapToInt(Worker::inFlight).sum();
    }

    /** Stops every shard's worker in parallel and waits for them. */
    @Override
    public void close() {
        List<Thread> closing = new ArrayList<>(workers.size());
        for (Worker w : workers) {
            closing.add(Thread.ofPlatform().name("queue-shard-worker-close").start(w::close));
        }
        boolean interrupted = false;
        for (Thread t : closing) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
