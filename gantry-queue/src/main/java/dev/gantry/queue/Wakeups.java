package dev.gantry.queue;

import dev.gantry.resilience.Backoff;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes idle workers when messages arrive, without polling delay. After an enqueue commits, the queue's name is
 * noted; a sender thread turns the names noted in the last few milliseconds into one {@code pg_notify} on its own
 * connection, outside any write transaction (a NOTIFY inside one would serialise commits). A listener thread holds
 * one connection with {@code LISTEN} and wakes the workers waiting on those queues. A missed notification costs only
 * latency: workers still poll, with jitter, which also covers messages whose run-at time arrives.
 *
 * <p>Both threads start on first use and survive database restarts (they reconnect with backoff).
 */
final class Wakeups implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Wakeups.class);
    private static final Backoff RECONNECT = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));
    static final String CHANNEL = "gantry_queue_wakeup";
    /** Notifications are coalesced: at most one per this interval. */
    static final Duration COALESCE = Duration.ofMillis(5);
    private static final Duration IDLE_RELEASE = Duration.ofSeconds(1);

    private final DataSource dataSource;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final Map<String, WakeupCount> signals = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private volatile Thread sender;
    private Thread listener;

    Wakeups(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Notes that {@code queue} has new messages; call after the enqueue committed. */
    void poke(String queue) {
        pending.add(queue);
        startSender();
        LockSupport.unpark(sender);
        WakeupCount s = signals.get(queue);
        if (s != null) {
            s.fire(); // waiters in this process need no round trip
        }
    }

    /** The wake-up count of {@code queue}; pass it to {@link #await} so a wake-up in between is not missed. */
    long generation(String queue) {
        startListener();
        return signals.computeIfAbsent(queue, q -> new WakeupCount()).generation();
    }

    /** Waits until {@code queue} was woken after {@code since}, or {@code timeout} passes; true when woken. */
    boolean await(String queue, long since, Duration timeout) throws InterruptedException {
        return signals.computeIfAbsent(queue, q -> new WakeupCount()).await(since, timeout);
    }

    private synchronized void startSender() {
        if (sender == null && !closed) {
            sender = Thread.ofPlatform().name("queue-wakeup-sender").daemon().start(this::sendLoop);
        }
    }

    private synchronized void startListener() {
        if (listener == null && !closed) {
            listener = Thread.ofPlatform().name("queue-wakeup-listener").daemon().start(this::listenLoop);
        }
    }

    /** Holds a connection only while there is something to send, and lets it go after a second of quiet. */
    private void sendLoop() {
        int failures = 0;
        while (!closed) {
            try {
                if (pending.isEmpty()) {
                    LockSupport.parkNanos(IDLE_RELEASE.toNanos()); // a poke unparks at once
                    continue;
                }
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(true);
                    failures = 0;
                    long quietSince = System.nanoTime();
                    while (!closed && System.nanoTime() - quietSince < IDLE_RELEASE.toNanos()) {
                        if (pending.isEmpty()) {
                            LockSupport.parkNanos(COALESCE.toNanos());
                            continue;
                        }
                        // The first news goes out at once; what comes in the next few milliseconds waits for one
                        // notification together.
                        send(c, drain());
                        quietSince = System.nanoTime();
                        Thread.sleep(COALESCE);
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (SQLException | RuntimeException e) {
                if (!pause(++failures, "sending wake-ups", e)) {
                    return;
                }
            }
        }
    }

    private static void send(Connection c, String payload) throws SQLException {
        try (var ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, CHANNEL);
            ps.setString(2, payload);
            ps.execute();
        }
    }

    /** The pending queue names, comma-separated, within NOTIFY's payload limit; the rest wait for the next round. */
    private String drain() {
        StringBuilder out = new StringBuilder();
        for (String q : pending) {
            if (out.length() + q.length() + 1 > 7_000) {
                break;
            }
            pending.remove(q);
            out.append(out.length() == 0 ? "" : ",").append(q);
        }
        return out.toString();
    }

    private void listenLoop() {
        int failures = 0;
        while (!closed) {
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                c.setAutoCommit(true);
                s.execute("LISTEN " + CHANNEL);
                PGConnection pg = c.unwrap(PGConnection.class);
                failures = 0;
                signals.values().forEach(WakeupCount::fire); // anything sent while we were away is picked up by a poll
                while (!closed) {
                    PGNotification[] got = pg.getNotifications(500);
                    if (got == null) {
                        continue;
                    }
                    for (PGNotification n : got) {
                        for (String queue : n.getParameter().split(",")) {
                            WakeupCount sig = signals.get(queue);
                            if (sig != null) {
                                sig.fire();
                            }
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!pause(++failures, "listening for wake-ups", e)) {
                    return;
                }
            }
        }
    }

    private boolean pause(int failures, String what, Exception e) {
        if (closed) {
            return false;
        }
        Duration wait = RECONNECT.delay(failures, RandomGenerator.getDefault());
        log.debug("{} failed ({}), reconnecting in {} ms", what, e.getMessage(), wait.toMillis());
        try {
            Thread.sleep(wait);
            return true;
        } catch (InterruptedException ie) {
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            if (sender != null) {
                sender.interrupt();
            }
            if (listener != null) {
                listener.interrupt();
            }
        }
        signals.values().forEach(WakeupCount::fire);
    }
}
