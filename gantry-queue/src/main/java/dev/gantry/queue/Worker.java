package dev.gantry.queue;

import dev.gantry.resilience.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one queue's messages to a handler on a pool of threads: claims batches as slots free up, a few ahead of
 * the handlers (and, when the queue is empty, waits for a wake-up from an enqueue, or a jittered poll), extends the
 * leases of messages in flight, completes them when the handler returns and fails them (retryable, or fatal with
 * {@link FatalFailure}) when it throws. When the database is unavailable it backs off with full jitter instead of
 * spinning, and picks up by itself when the database returns.
 *
 * <p>Delivery is at least once: a handler may see a message again after a crash or a lost lease, so handlers must be
 * idempotent (key their side effects by message id and attempt). When a heartbeat finds the lease lost (the message
 * was rescued while the handler ran too long), or the lease runs out without a renewal (the database was away), the
 * handler's thread is interrupted; handlers must stop when interrupted, or they may overlap the redelivery.
 * {@link #close()} stops claiming and waits for the messages in flight.
 */
public final class Worker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    /** Handles one message; returning normally completes it. */
    @FunctionalInterface
    public interface Handler {
        void handle(Message message) throws Exception;
    }

    /** Thrown by a handler for a failure that no retry can fix: the message is dead-lettered at once. */
    public static final class FatalFailure extends RuntimeException {
        public FatalFailure(String message) {
            super(message);
        }
    }

    /**
     * Whether the worker may claim now, asked before every claim: the server's dispatch holds workers back while the
     * database is distressed and lets them in gradually as it recovers. Must answer from memory, at once.
     */
    @FunctionalInterface
    public interface ClaimGate {
        /** Always open. */
        ClaimGate OPEN = wanted -> wanted;

        /** How many of {@code wanted} messages may be claimed now; 0 holds the claim back for an idle poll. */
        int admit(int wanted);
    }

    /**
     * @param name        the worker's name, recorded on the messages it holds
     * @param concurrency messages handled at once
     * @param prefetch    messages claimed ahead of free handlers, so that one claim transaction serves many
     *                    messages; they are leased (and heartbeated) while they wait. 0 claims only for free handlers.
     * @param idlePoll    how long to wait before looking again when the queue was empty (jittered)
     * @param maxBackoff  the longest wait between tries while the database is unavailable
     * @param closeWait   how long {@link #close()} waits for the handlers, and then as long again for their
     *                    completions to be recorded
     * @param gate        asked before every claim how many messages may be claimed ({@link ClaimGate#OPEN}: all)
     */
    public record Options(String name, int concurrency, int prefetch, Duration idlePoll, Duration maxBackoff,
                          Duration closeWait, ClaimGate gate) {
        public static final Duration DEFAULT_IDLE_POLL = Duration.ofMillis(200);
        public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);
        public static final Duration DEFAULT_CLOSE_WAIT = Duration.ofSeconds(30);
        /** The longest wait before the first try again while the database is unavailable. */
        static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
        /** Default prefetch, per handler thread. */
        public static final int DEFAULT_PREFETCH_PER_HANDLER = 3;

        public Options {
            Objects.requireNonNull(name, "name");
            if (concurrency < 1) {
                throw new IllegalArgumentException("concurrency must be at least 1, got " + concurrency);
            }
            if (prefetch < 0) {
                throw new IllegalArgumentException("prefetch must not be negative, got " + prefetch);
            }
            if (maxBackoff == null || maxBackoff.compareTo(FIRST_BACKOFF) < 0) {
                throw new IllegalArgumentException("maxBackoff must be at least " + FIRST_BACKOFF + ", got "
                        + maxBackoff);
            }
            if (closeWait == null || closeWait.isNegative() || closeWait.isZero()) {
                throw new IllegalArgumentException("closeWait must be positive, got " + closeWait);
            }
            Objects.requireNonNull(gate, "gate");
        }

        /** {@code concurrency} handlers, {@value #DEFAULT_PREFETCH_PER_HANDLER} × as many prefetched, default polls. */
        public static Options named(String name, int concurrency) {
            return new Options(name, concurrency, DEFAULT_PREFETCH_PER_HANDLER * concurrency, DEFAULT_IDLE_POLL,
                    DEFAULT_MAX_BACKOFF, DEFAULT_CLOSE_WAIT, ClaimGate.OPEN);
        }

        public Options withPrefetch(int prefetch) {
            return new Options(name, concurrency, prefetch, idlePoll, maxBackoff, closeWait, gate);
        }

        public Options withIdlePoll(Duration idlePoll) {
            return new Options(name, concurrency, prefetch, idlePoll, maxBackoff, closeWait, gate);
        }

        public Options withMaxBackoff(Duration maxBackoff) {
            return new Options(name, concurrency, prefetch, idlePoll, maxBackoff, closeWait, gate);
        }

        public Options withCloseWait(Duration closeWait) {
            return new Options(name, concurrency, prefetch, idlePoll, maxBackoff, closeWait, gate);
        }

        public Options withGate(ClaimGate gate) {
            return new Options(name, concurrency, prefetch, idlePoll, maxBackoff, closeWait, gate);
        }
    }

    private final Queues queues;
    private final String queue;
    private final Handler handler;
    private final Options options;
    private final Backoff backoff;
    private final Semaphore slots;
    private final ExecutorService handlers;
    /** The deliveries being handled; a stale delivery and the redelivery of its message are two entries. */
    private final Set<Delivery> inFlight = ConcurrentHashMap.newKeySet();

    /** One delivery: the message as claimed (its attempt is the fence) and the task handling it. */
    private static final class Delivery {
        final Message message;
        final FutureTask<Void> handling;
        /** Set once, by whichever comes first: the handler starting, or a lost lease withdrawing a waiting delivery. */
        final AtomicBoolean taken = new AtomicBoolean();
        /** When the lease ends at the latest, as far as this worker knows (only the heartbeater changes it). */
        volatile Instant leaseUntil;

        Delivery(Message message, FutureTask<Void> handling) {
            this.message = message;
            this.handling = handling;
            this.leaseUntil = message.leaseUntil();
        }
    }
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Set when {@link #close()} returns: nothing of this worker's renews a lease or stops a delivery after that. */
    private volatile boolean closed;
    private final Thread claimer;
    private final Thread heartbeater;
    private final Thread expirer;
    private final Thread completer;
    /** Handled deliveries waiting for their completion to commit, in one transaction with the others waiting. */
    private final LinkedBlockingQueue<Delivery> finished = new LinkedBlockingQueue<>();
    private volatile boolean handlersDone;
    static final int MAX_COMPLETION_BATCH = 500;
    /** The longest a delivery runs on after its lease ran out here unrenewed (see {@link #expiryLoop}). */
    static final Duration EXPIRY_CHECK = Duration.ofSeconds(1);

    private Worker(Queues queues, String queue, Handler handler, Options options) {
        this.queues = queues;
        this.queue = queue;
        this.handler = handler;
        this.options = options;
        this.backoff = new Backoff(Options.FIRST_BACKOFF, options.maxBackoff());
        this.slots = new Semaphore(options.concurrency() + options.prefetch());
        this.handlers = Executors.newFixedThreadPool(options.concurrency(),
                Thread.ofPlatform().name("queue-" + queue + "-", 0).factory());
        this.claimer = Thread.ofPlatform().name("queue-" + queue + "-claimer").unstarted(this::claimLoop);
        this.heartbeater = Thread.ofPlatform().name("queue-" + queue + "-heartbeat").daemon().unstarted(this::heartbeatLoop);
        this.expirer = Thread.ofPlatform().name("queue-" + queue + "-expiry").daemon().unstarted(this::expiryLoop);
        this.completer = Thread.ofPlatform().name("queue-" + queue + "-completer").unstarted(this::completeLoop);
    }

    /** Starts delivering {@code queue}'s messages to {@code handler}. */
    public static Worker start(Queues queues, String queue, Handler handler, Options options) {
        Queues.checkName(queue);
        Worker w = new Worker(queues, queue, handler, options);
        w.claimer.start();
        w.heartbeater.start();
        w.expirer.start();
        w.completer.start();
        return w;
    }

    private void claimLoop() {
        int failures = 0;
        while (running.get()) {
            int free = 0;
            try {
                // Claim once at most `concurrency` messages are held, then for every free slot: with prefetch, one
                // claim transaction (one flush to disk) serves many messages rather than the one just finished.
                int batch = Math.max(1, options.prefetch());
                slots.acquire(batch);
                free = batch + slots.drainPermits();
                int asked = Math.clamp(options.gate().admit(free), 0, free);
                slots.release(free - asked);
                free = asked;
                if (asked == 0) {
                    Thread.sleep(jittered(options.idlePoll()).toMillis());
                    continue;
                }
                long wakeup = queues.wakeups().generation(queue);
                var claimed = queues.claim(queue, options.name(), asked);
                slots.release(asked - claimed.size());
                free = 0;
                failures = 0;
                for (Message m : claimed) {
                    Delivery[] self = new Delivery[1];
                    FutureTask<Void> task = new FutureTask<>(() -> deliver(self[0]), null);
                    self[0] = new Delivery(m, task);
                    inFlight.add(self[0]);
                    handlers.execute(task);
                }
                if (claimed.size() < asked) {
                    // Nothing more is ready: wait for news (at once if some came during the claim) rather than
                    // spin on claims that each find a few messages.
                    queues.wakeups().await(queue, wakeup, jittered(options.idlePoll()));
                }
            } catch (InterruptedException e) {
                slots.release(free);
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                slots.release(free);
                Duration wait = backoff.delay(++failures, queues.settings().random());
                if (e instanceof QueueUnavailableException) {
                    log.warn("queue {}: database unavailable, retrying in {} ms: {}", queue, wait.toMillis(),
                            e.getMessage());
                } else {
                    log.error("queue {}: claiming failed, retrying in {} ms", queue, wait.toMillis(), e);
                }
                sleep(wait);
            }
        }
    }

    private void deliver(Delivery d) {
        if (!d.taken.compareAndSet(false, true)) {
            return; // withdrawn after its lease was lost while it waited
        }
        Message m = d.message;
        boolean handled = false;
        try {
            handler.handle(m);
            finished.add(d); // completed by the completer, batched with the others finishing now
            handled = true;
        } catch (Exception e) {
            fail(m, e);
        } finally {
            if (!handled) {
                inFlight.remove(d);
            }
            slots.release();
        }
    }

    /**
     * Commits completions in batches: while one commit flushes to disk, the next deliveries finish and go into the
     * next batch, so a commit serves many messages. A delivery stays in flight (and heartbeated) until its completion
     * commits; if the database is away the batch is kept and retried with backoff.
     */
    private void completeLoop() {
        List<Delivery> batch = new ArrayList<>();
        int failures = 0;
        while (!handlersDone || !finished.isEmpty() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Delivery first = finished.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                }
                finished.drainTo(batch, MAX_COMPLETION_BATCH - batch.size());
                Set<Message> done = Set.copyOf(queues.completeAll(batch.stream().map(d -> d.message).toList()));
                for (Delivery d : batch) {
                    if (!done.contains(d.message)) {
                        log.warn("queue {}: {}", queue, new LeaseLostException(d.message.id(), d.message.attempt())
                                .getMessage());
                    }
                    inFlight.remove(d);
                }
                batch.clear();
                failures = 0;
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                Duration wait = backoff.delay(++failures, queues.settings().random());
                log.warn("queue {}: could not record {} completions, retrying in {} ms: {}", queue, batch.size(),
                        wait.toMillis(), e.getMessage());
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException stop) {
                    break;
                }
            }
        }
        // Interrupted by close(), which waited long enough for the database: these messages were handled but their
        // completions are not recorded, so they run again once their leases run out (at least once).
        finished.drainTo(batch);
        if (!batch.isEmpty()) {
            log.warn("queue {}: closing without recording {} completions; those messages will run again after their "
                    + "leases", queue, batch.size());
            batch.forEach(inFlight::remove);
        }
    }

    private void fail(Message m, Exception cause) {
        boolean fatal = cause instanceof FatalFailure;
        // The message keeps the reason too, but an operator reads the log first.
        log.warn("queue {}: message {} attempt {} failed ({}): {}", queue, m.id(), m.attempt(),
                fatal ? "fatal" : "will retry", cause.toString(), fatal ? null : cause);
        try {
            queues.fail(m, cause.getClass().getSimpleName() + ": " + cause.getMessage(), !fatal);
        } catch (QueueException e) {
            log.warn("queue {}: could not record the failure of message {}: {}", queue, m.id(), e.getMessage());
        }
    }

    /**
     * Every third of a lease, extends in one statement the leases that are a third used up or more: a message
     * claimed a moment ago (most of them, when handlers are quick) is not written again, and the rest cost one
     * commit, not one each. A lease is so renewed with at least a third of it left.
     */
    private void heartbeatLoop() {
        Duration lease = queues.settings().lease();
        Duration every = Duration.ofMillis(Math.max(1, lease.toMillis() / 3));
        while (!closed && (running.get() || !inFlight.isEmpty())) {
            sleep(every);
            Instant now = queues.settings().clock().instant();
            Instant renewBefore = now.plus(lease).minus(every);
            List<Delivery> due = inFlight.stream()
                    .filter(d -> !d.handling.isCancelled() && d.leaseUntil.isBefore(renewBefore)).toList();
            if (due.isEmpty()) {
                continue;
            }
            List<Message> extended;
            try {
                extended = queues.heartbeatAll(due.stream().map(d -> d.message).toList());
            } catch (QueueException e) {
                log.warn("queue {}: could not extend the leases of {} messages: {}", queue, due.size(),
                        e.getMessage());
                continue;
            }
            Set<Message> kept = Set.copyOf(extended);
            for (Delivery d : due) {
                if (kept.contains(d.message)) {
                    d.leaseUntil = now.plus(lease); // the database's is a moment later
                } else {
                    leaseLost(d, "was lost");
                }
            }
        }
    }

    /**
     * Stops the deliveries whose lease has run out here without a renewal (the database was away): the sweeper may
     * hand such a message to another worker as soon as the database is back, and waiting for the next heartbeat that
     * reaches it would let the two run side by side for up to a third of a lease. A thread of its own, because a
     * heartbeat waits for the database while it is away.
     */
    private void expiryLoop() {
        while (!closed && (running.get() || !inFlight.isEmpty())) {
            sleep(EXPIRY_CHECK);
            Instant now = queues.settings().clock().instant();
            inFlight.stream().filter(d -> !d.leaseUntil.isAfter(now))
                    .forEach(d -> leaseLost(d, "ran out at " + d.leaseUntil + " without a renewal"));
        }
    }

    /**
     * A handled delivery is either completed by now (its removal from inFlight is a moment behind the commit) or its
     * completion will report the loss: only one still waiting or running stops, since its message was rescued (or
     * may be) and may be redelivered, and it must not run beside that.
     */
    private void leaseLost(Delivery d, String how) {
        if (inFlight.contains(d) && !d.handling.isDone()) {
            log.warn("queue {}: the lease of message {} at attempt {} {}; stopping its delivery", queue,
                    d.message.id(), d.message.attempt(), how);
            d.handling.cancel(true);
            if (d.taken.compareAndSet(false, true)) { // it was still waiting: nothing else frees its slot
                inFlight.remove(d);
                slots.release();
            }
        }
    }

    private Duration jittered(Duration d) {
        long ms = d.toMillis();
        return Duration.ofMillis(ms / 2 + queues.settings().random().nextLong(ms / 2 + 1));
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Messages this worker holds now: waiting for a handler, being handled, or waiting for their completion. */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * Stops claiming, waits up to {@link Options#closeWait()} for the handlers and as long again for their completions
     * to be recorded, then stops. Completions the database has not taken by then (it is away) are given up: those
     * messages run again after their leases. A handler still running then (it ignored the interrupt) is left to
     * itself, and its lease is no longer renewed: its message too runs again after its lease, perhaps elsewhere.
     */
    @Override
    public void close() {
        running.set(false);
        claimer.interrupt();
        long wait = options.closeWait().toMillis();
        try {
            claimer.join(10_000);
            handlers.shutdown();
            if (!handlers.awaitTermination(wait, TimeUnit.MILLISECONDS)) {
                handlers.shutdownNow();
            }
            handlersDone = true;
            completer.join(wait);
            if (completer.isAlive()) {
                // The database is still away: give up the completions it holds rather than leave it running.
                completer.interrupt();
                completer.join(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closed = true;
            List<Long> stuck = inFlight.stream().map(d -> d.message.id()).toList();
            if (!stuck.isEmpty()) {
                log.warn("queue {}: closed with {} deliveries whose handlers did not stop when interrupted (messages "
                        + "{}); their leases are no longer renewed, so they run again once the leases run out",
                        queue, stuck.size(), stuck);
            }
        }
    }
}
