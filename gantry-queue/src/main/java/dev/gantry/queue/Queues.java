package dev.gantry.queue;

import dev.gantry.resilience.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;

/**
 * The durable queue on one PostgreSQL database: enqueue in the caller's transaction, claim with leases, complete,
 * retry with backoff, dead-letter and replay, pause and resume, and the maintenance that keeps it from rotting.
 *
 * <p>Thread-safe; one instance per database (shard) is enough for a process. Every method that touches the
 * database throws {@link QueueUnavailableException} when the database cannot take it now, having written nothing.
 */
public final class Queues implements AutoCloseable {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_.-]{0,62}");
    /** Groups one claim looks at; with more groups ready at once, the ones past this wait for a later claim. */
    static final int MAX_GROUPS_PER_CLAIM = 1_000;
    private static final int CONFLICT_TRIES = 3;

    private final Jdbi jdbi;
    private final QueueSettings settings;
    private final Epochs epochs;
    private final Wakeups wakeups;
    private final QueueConfig config;
    private final QueueMetrics metrics;
    private final Probes probes;
    /** Groups seen by each queue's last claim: sizes the next claim's share per group. */
    private final Map<String, Integer> groupsSeen = new ConcurrentHashMap<>();

    private Queues(DataSource dataSource, QueueSettings settings, MeterRegistry registry) {
        this.jdbi = Jdbi.create(dataSource);
        this.settings = settings;
        this.epochs = new Epochs(jdbi, settings);
        this.wakeups = new Wakeups(dataSource);
        this.config = new QueueConfig(jdbi, settings.clock());
        this.probes = new Probes(jdbi, settings);
        this.metrics = new QueueMetrics(registry, probes::stats, probes::health);
    }

    /**
     * Migrates the queue's schema ({@code gantry_queue}, with its own Flyway history) and opens the first epoch if
     * needed. Safe to call from several processes at once.
     */
    public static Queues start(DataSource dataSource, QueueSettings settings) {
        return start(dataSource, settings, Metrics.globalRegistry);
    }

    /** As {@link #start(DataSource, QueueSettings)}, with the queue's meters registered in {@code registry}. */
    public static Queues start(DataSource dataSource, QueueSettings settings, MeterRegistry registry) {
        try {
            Flyway.configure().dataSource(dataSource).schemas("gantry_queue").defaultSchema("gantry_queue")
                    .table("flyway_schema_history").locations("classpath:db/gantry_queue").load().migrate();
        } catch (RuntimeException e) {
            throw SqlFailures.translate("migrating the queue schema", e);
        }
        Queues queues = new Queues(dataSource, settings, registry);
        queues.epochs.ensureOpen();
        return queues;
    }

    public QueueSettings settings() {
        return settings;
    }

    /** Enqueues in a transaction of its own. */
    public Enqueued enqueue(NewMessage message) {
        return transaction("enqueue", h -> insert(h, message));
    }

    /**
     * Enqueues inside the caller's transaction, so the message commits (or rolls back) with the caller's own writes.
     * With a unique key, an existing message of that key is returned instead of creating another.
     */
    public Enqueued enqueue(Handle handle, NewMessage message) {
        return call("enqueue", () -> insert(handle, message));
    }

    /** Wakes waiting workers once the caller's transaction commits (at once when there is none). */
    private void wakeAfterCommit(Handle h, String queue) {
        if (h.isInTransaction()) {
            h.afterCommit(() -> wakeups.poke(queue));
        } else {
            wakeups.poke(queue);
        }
    }

    Wakeups wakeups() {
        return wakeups;
    }

    /**
     * Enqueues several messages in the caller's transaction, in order. Consecutive messages without a unique key go
     * in with one statement.
     */
    public List<Enqueued> enqueueAll(Handle handle, List<NewMessage> messages) {
        return call("enqueue", () -> {
            List<Enqueued> out = new ArrayList<>(messages.size());
            int from = 0;
            while (from < messages.size()) {
                int to = from;
                while (to < messages.size() && messages.get(to).uniqueKey() == null) {
                    to++;
                }
                if (to - from > 1) {
                    out.addAll(insertUnkeyed(handle, messages.subList(from, to)));
                } else {
                    to = from + 1;
                    out.add(insert(handle, messages.get(from)));
                }
                from = to;
            }
            return out;
        });
    }

    /** As {@link #enqueueAll(Handle, List)}, in a transaction of its own: all of them or none. */
    public List<Enqueued> enqueueAll(List<NewMessage> messages) {
        return transaction("enqueue", h -> enqueueAll(h, messages));
    }

    private List<Enqueued> insertUnkeyed(Handle h, List<NewMessage> batch) {
        Instant now = settings.clock().instant();
        int n = batch.size();
        String[] queues = new String[n];
        Integer[] priorities = new Integer[n];
        String[] groups = new String[n];
        Long[] runAts = new Long[n];
        Integer[] maxAttempts = new Integer[n];
        String[] payloads = new String[n];
        for (int i = 0; i < n; i++) {
            NewMessage m = batch.get(i);
            queues[i] = m.queue();
            priorities[i] = m.priority();
            groups[i] = m.group();
            runAts[i] = micros(m.runAt() == null ? now : m.runAt());
            maxAttempts[i] = m.maxAttempts();
            payloads[i] = m.payload();
        }
        // One backend's nextval() values rise, and the rows are numbered in list order: the sorted ids match the list.
        List<Long> ids = new ArrayList<>(h.createQuery(MessageSql.INSERT_ALL)
                .bindArray("queues", String.class, (Object[]) queues)
                .bindArray("priorities", Integer.class, (Object[]) priorities)
                .bindArray("groups", String.class, (Object[]) groups)
                .bindArray("runAts", Long.class, (Object[]) runAts)
                .bindArray("maxAttempts", Integer.class, (Object[]) maxAttempts)
                .bindArray("payloads", String.class, (Object[]) payloads)
                .bind("now", ts(now)).mapTo(Long.class).list());
        ids.sort(null);
        List<Enqueued> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Enqueued(ids.get(i), true));
        }
        batch.stream().collect(java.util.stream.Collectors.groupingBy(NewMessage::queue,
                java.util.stream.Collectors.counting())).forEach((q, count) -> {
            wakeAfterCommit(h, q);
            metrics.count(q, "enqueued", count.intValue());
        });
        return out;
    }

    private static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }

    private Enqueued insert(Handle h, NewMessage m) {
        Instant now = settings.clock().instant();
        if (m.uniqueKey() != null) {
            h.createQuery(MessageSql.LOCK_KEY).bind("queue", m.queue()).bind("key", m.uniqueKey()).mapToMap().one();
            Optional<Long> existing = h.createQuery(MessageSql.findByKey(unsealed(h))).bind("queue", m.queue())
                    .bind("key", m.uniqueKey()).mapTo(Long.class).findFirst();
            if (existing.isPresent()) {
                return new Enqueued(existing.get(), false);
            }
        }
        long id = h.createQuery(MessageSql.INSERT)
                .bind("queue", m.queue()).bind("priority", (short) m.priority()).bind("group", m.group())
                .bind("runAt", ts(m.runAt() == null ? now : m.runAt())).bind("maxAttempts", m.maxAttempts())
                .bind("key", m.uniqueKey()).bind("payload", m.payload()).bind("now", ts(now))
                .mapTo(Long.class).one();
        wakeAfterCommit(h, m.queue());
        metrics.count(m.queue(), "enqueued", 1);
        return new Enqueued(id, true);
    }

    /**
     * Claims up to {@code limit} ready messages of {@code queue} for {@code worker}: highest priority first; within a
     * priority, groups take turns, so one tenant's flood does not starve the others; within a group, oldest first.
     * Each comes with a lease of {@link QueueSettings#lease()} and a new attempt number. Returns nothing while the
     * queue is paused.
     */
    public List<Message> claim(String queue, String worker, int limit) {
        checkName(queue);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        Instant now = settings.clock().instant();
        QueueConfig.Settings cfg = call("claim", () -> config.of(queue, now));
        double share = cfg.ramp().fraction(cfg.resumedAt(), now);
        int wanted = limit;
        if (cfg.limits().maxPerSecond() != null) {
            wanted = config.takeRate(queue, cfg.limits().maxPerSecond() * share, wanted);
            if (wanted == 0) {
                return List.of();
            }
        }
        Integer maxRunning = cfg.limits().maxRunning() == null ? null
                : Math.max(1, (int) Math.floor(cfg.limits().maxRunning() * share));
        int groups = groupsSeen.getOrDefault(queue, 1);
        int asked = wanted;
        List<Message> claimed = maxRunning == null
                ? statement("claim", h -> claimIn(h, queue, worker, now, asked, groups))
                : transaction("claim", h -> {
                    h.createQuery(MessageSql.LOCK_CLAIMS).bind("queue", queue).mapToMap().one();
                    long running = h.createQuery(MessageSql.RUNNING).bind("queue", queue).mapTo(Long.class).one();
                    int n = (int) Math.min(asked, maxRunning - running);
                    return n <= 0 ? List.<Message>of() : claimIn(h, queue, worker, now, n, groups);
                });
        groupsSeen.put(queue, (int) Math.max(1, claimed.stream().map(Message::group).distinct().count()));
        List<Message> ordered = new ArrayList<>(claimed);
        ordered.sort(Comparator.comparingInt(Message::priority).reversed().thenComparingLong(Message::id));
        return ordered;
    }

    /** Claims up to {@code n} messages, asking each of {@code groups} groups for its share. */
    private List<Message> claimIn(Handle h, String queue, String worker, Instant now, int n, int groups) {
        // Over-locking a little (perGroup × groups) is released when the claim commits, a moment later.
        int perGroup = (n + groups - 1) / groups;
        return h.createQuery(MessageSql.CLAIM)
                .bind("queue", queue).bind("now", ts(now)).bind("limit", n).bind("perGroup", perGroup)
                .bind("maxGroups", MAX_GROUPS_PER_CLAIM)
                .bind("leaseUntil", ts(now.plus(settings.lease()))).bind("worker", worker)
                .map((rs, ctx) -> {
                    metrics.waited(queue, Duration.between(rs.getObject("run_at", OffsetDateTime.class).toInstant(),
                            now));
                    return new Message(rs.getLong("id"), rs.getString("queue"), rs.getString("payload"),
                            rs.getString("unique_key"), rs.getString("group_key"), rs.getShort("priority"),
                            rs.getInt("attempt"), rs.getInt("max_attempts"),
                            rs.getObject("enqueued_at", OffsetDateTime.class).toInstant(),
                            rs.getObject("lease_until", OffsetDateTime.class).toInstant(), rs.getString("last_error"));
                })
                .list();
    }

    /** Marks a held message done. Throws {@link LeaseLostException} when this attempt no longer holds it. */
    public void complete(Message message) {
        if (completeAll(List.of(message)).isEmpty()) {
            throw new LeaseLostException(message.id(), message.attempt());
        }
    }

    /**
     * A message of {@code queue} stopped running. Under a concurrency limit, claims that were cut short by it can take
     * another now: wake the workers rather than leave them to their next poll.
     */
    private void slotFreed(String queue) {
        if (config.capsRunning(queue)) {
            wakeups.poke(queue);
        }
    }

    /**
     * Marks several held messages done in one statement (one commit, so one flush to disk, for all of them).
     *
     * @return the messages that were completed; one missing from it was no longer held at its attempt
     */
    public List<Message> completeAll(List<Message> messages) {
        Instant now = settings.clock().instant();
        List<Message> done = updateHeld("complete", MessageSql.COMPLETE_ALL, messages, q -> q.bind("now", ts(now)));
        done.forEach(m -> metrics.count(m.queue(), "completed", 1));
        messages.stream().map(Message::queue).distinct().forEach(this::slotFreed);
        return done;
    }

    /**
     * Runs one of the statements that change held messages by id and attempt ({@code :ids}, {@code :attempts}) for
     * all of {@code messages}, and returns those it changed. The statement commits on its own: one round trip.
     */
    private List<Message> updateHeld(String what, String sql, List<Message> messages, Consumer<Query> bind) {
        if (messages.isEmpty()) {
            return List.of();
        }
        Set<Held> changed = new HashSet<>(statement(what, h -> updateHeld(h, sql, messages, bind)));
        if (changed.size() < messages.size()) {
            // PostgreSQL 18.1 sometimes let the statement skip a message whose row it had to wait for (a heartbeat
            // extending its lease at that moment); 18.2 fixed it (HeartbeatRaceIT). The embedded server is newer,
            // but an external one may not be: a second statement sees the other's row and changes it, where a
            // completion would otherwise be lost and the message run again after its lease.
            List<Message> rest = messages.stream().filter(m -> !changed.contains(Held.of(m))).toList();
            changed.addAll(statement(what, h -> updateHeld(h, sql, rest, bind)));
        }
        return messages.stream().filter(m -> changed.contains(Held.of(m))).toList();
    }

    private static List<Held> updateHeld(Handle h, String sql, List<Message> messages, Consumer<Query> bind) {
        Query q = heldQuery(h, sql, messages);
        bind.accept(q);
        return q.map((rs, ctx) -> new Held(rs.getLong(1), rs.getInt(2))).list();
    }

    /** {@code sql} with {@code messages} bound as {@code :ids} and {@code :attempts}. */
    private static Query heldQuery(Handle h, String sql, List<Message> messages) {
        // Each id once, at its highest attempt: a lower one is a stale delivery, which the row no longer matches.
        Map<Long, Integer> latest = new LinkedHashMap<>();
        messages.forEach(m -> latest.merge(m.id(), m.attempt(), Math::max));
        return h.createQuery(sql)
                .bindArray("ids", Long.class, latest.keySet().toArray())
                .bindArray("attempts", Integer.class, latest.values().toArray());
    }

    /** A message at one attempt: a redelivery and the stale delivery it replaced are two. */
    private record Held(long id, int attempt) {
        static Held of(Message m) {
            return new Held(m.id(), m.attempt());
        }
    }

    /**
     * Records a failed delivery. A retryable failure with attempts left is retried after a capped, fully jittered
     * exponential backoff; otherwise the message is dead-lettered with {@code error} as its reason.
     *
     * @return true when the message will be retried, false when it was dead-lettered
     */
    public boolean fail(Message message, String error, boolean retryable) {
        Instant now = settings.clock().instant();
        boolean retry = retryable && !message.lastAttempt();
        String reason = error == null ? "failed" : error;
        if (retry) {
            Duration delay = new Backoff(settings.retryBase(), settings.retryCap()).delay(message.attempt(),
                    settings.random());
            held(message, "retry", h -> h.createUpdate(MessageSql.RETRY).bind("id", message.id())
                    .bind("attempt", message.attempt()).bind("runAt", ts(now.plus(delay))).bind("error", reason)
                    .execute());
        } else {
            held(message, "dead-letter", h -> h.createUpdate(MessageSql.BURY).bind("id", message.id())
                    .bind("attempt", message.attempt()).bind("now", ts(now)).bind("error", reason).execute());
        }
        metrics.count(message.queue(), retry ? "retried" : "dead", 1);
        slotFreed(message.queue());
        return retry;
    }

    /**
     * Extends the leases of held messages by {@link QueueSettings#lease()} from now, in one statement.
     *
     * @return the messages whose lease was extended; one missing from it was no longer held at its attempt
     */
    public List<Message> heartbeatAll(List<Message> messages) {
        Instant until = settings.clock().instant().plus(settings.lease());
        return updateHeld("heartbeat", MessageSql.EXTEND_ALL, messages, q -> q.bind("leaseUntil", ts(until)));
    }

    /**
     * Extends the lease of one held message by {@link QueueSettings#lease()} from now.
     *
     * @throws LeaseLostException when the message is no longer held at its attempt
     */
    public void heartbeat(Message message) {
        if (heartbeatAll(List.of(message)).isEmpty()) {
            throw new LeaseLostException(message.id(), message.attempt());
        }
    }

    /**
     * Puts a dead-lettered message back to ready with a fresh allowance of attempts (the attempt number keeps
     * counting, so it still fences out earlier holders). False when there is no such dead message.
     */
    public boolean replay(long id) {
        Instant now = settings.clock().instant();
        return transaction("replay", h -> {
            Predicate<String> replays = sql -> h.createUpdate(sql).bind("id", id).bind("now", ts(now)).execute() == 1;
            // In the hot table, else in an epoch between it and the archive (see MessageSql.UNSEALED), else archived.
            boolean replayed = replays.test(MessageSql.REPLAY_LIVE)
                    || unsealed(h).stream().anyMatch(epoch -> replays.test(MessageSql.replayDetached(epoch)))
                    || replays.test(MessageSql.REPLAY_ARCHIVED);
            if (replayed) {
                h.createQuery("SELECT queue FROM gantry_queue.message WHERE id = :id").bind("id", id)
                        .mapTo(String.class).findFirst().ifPresent(q -> wakeAfterCommit(h, q));
            }
            return replayed;
        });
    }

    /** Stops claims from {@code queue}; enqueues continue. */
    public void pause(String queue) {
        checkName(queue);
        Instant now = settings.clock().instant();
        call("pause", () -> jdbi.withHandle(h -> h.createUpdate(MessageSql.PAUSE).bind("queue", queue)
                .bind("now", ts(now)).execute()));
    }

    /** Lets claims from {@code queue} resume at its full limits at once. */
    public void resume(String queue) {
        resume(queue, Ramp.NONE);
    }

    /**
     * Lets claims from {@code queue} resume, its limits rising from {@code ramp.from()} of each to full over
     * {@code ramp.over()}. A ramp needs limits to scale: set them with {@link #limit} first.
     */
    public void resume(String queue, Ramp ramp) {
        checkName(queue);
        Instant now = settings.clock().instant();
        if (!ramp.equals(Ramp.NONE)) {
            config.forget(queue);
            if (!call("resume", () -> config.of(queue, now)).limits().any()) {
                throw new IllegalArgumentException("queue '" + queue + "' has no limits for a ramp to scale; "
                        + "set maxRunning or maxPerSecond first");
            }
        }
        call("resume", () -> jdbi.inTransaction(h -> {
            return h.createUpdate(MessageSql.RESUME).bind("queue", queue).bind("now", ts(now))
                    .bind("rampFrom", (float) ramp.from()).bind("rampSeconds", (int) ramp.over().toSeconds())
                    .execute();
        }));
        config.forget(queue);
        wakeups.poke(queue);
    }

    /** Sets {@code queue}'s concurrency and rate limits (null fields: unlimited). Takes effect within a second. */
    public void limit(String queue, QueueLimits limits) {
        checkName(queue);
        Instant now = settings.clock().instant();
        call("limit", () -> jdbi.withHandle(h -> h.createUpdate(MessageSql.SET_LIMITS).bind("queue", queue)
                .bind("now", ts(now)).bind("maxRunning", limits.maxRunning())
                .bind("maxPerSecond", limits.maxPerSecond() == null ? null : limits.maxPerSecond().floatValue())
                .execute()));
        config.forget(queue);
    }

    /** The queues an operator has paused, resumed or limited, by name; the others run unpaused and unlimited. */
    public List<QueueControl> controls() {
        return call("controls", () -> jdbi.withHandle(h -> h.createQuery("SELECT " + QueueControl.COLUMNS
                + " FROM gantry_queue.queue ORDER BY name").map((rs, ctx) -> QueueControl.read(rs)).list()));
    }

    /** {@code queue}'s dead messages (within retention), the latest to die first, at most {@code limit}. */
    public List<DeadMessage> dead(String queue, int limit) {
        checkName(queue);
        if (limit < 1) {
            throw new IllegalArgumentException("the limit must be at least 1, got " + limit);
        }
        return call("dead", () -> jdbi.withHandle(h -> h.createQuery(MessageSql.dead(unsealed(h)))
                .bind("queue", queue).bind("limit", limit)
                .map((rs, ctx) -> new DeadMessage(rs.getLong("id"), rs.getString("queue"), rs.getString("payload"),
                        rs.getInt("attempt"), rs.getString("last_error"),
                        rs.getObject("finished_at", OffsetDateTime.class).toInstant()))
                .list()));
    }

    /** Where a message is now, or empty when it is unknown (never enqueued, or dropped after retention). */
    public Optional<MessageState> state(long id) {
        return call("state", () -> jdbi.withHandle(h -> h.createQuery(MessageSql.stateOf(unsealed(h)))
                .bind("id", id).mapTo(Integer.class).findFirst().map(MessageState::of)));
    }

    private static List<Integer> unsealed(Handle h) {
        return h.createQuery(MessageSql.UNSEALED).mapTo(Integer.class).list();
    }

    /** Puts messages whose lease expired back to ready (or dead, when out of attempts); returns how many. */
    public int rescueExpired(int limit) {
        Instant now = settings.clock().instant();
        List<String> rescued = transaction("rescue", h -> h.createQuery(MessageSql.RESCUE)
                .bind("now", ts(now)).bind("limit", limit).mapTo(String.class).list());
        rescued.forEach(q -> metrics.count(q, "rescued", 1));
        return rescued.size();
    }

    /**
     * Releases at once the messages that {@code workers} hold, as a rescue would once their leases ran out, and
     * returns how many. For a process that restarts: the worker names its previous run used, which must be dead
     * (no live process may use those names), so their messages need not wait out their leases.
     */
    public int releaseHeldBy(Collection<String> workers) {
        Instant now = settings.clock().instant();
        List<String> released = transaction("release", h -> h.createQuery(
                MessageSql.RELEASE_HELD_BY).bind("now", ts(now)).bind("workers", workers.toArray(String[]::new))
                .mapTo(String.class).list());
        released.forEach(q -> metrics.count(q, "rescued", 1));
        return released.size();
    }

    /**
     * Rescues expired leases, opens a new epoch when the current one is old, seals epochs past their time and drops
     * archived ones past retention. Run it every few seconds from one or more processes; they take turns.
     */
    public void maintain() {
        rescueExpired(1_000);
        call("maintenance", () -> {
            epochs.maintain();
            return null;
        });
    }

    /** Every queue's depth now, by name. */
    public List<QueueStats> stats() {
        return probes.stats();
    }

    /**
     * Probes the database: WAL bytes per second since the previous probe (over 200 ms when there was none in the last
     * minute), the queue tables' dead and live tuples, and the time a minimal write transaction takes to commit.
     */
    public DatabaseHealth health() {
        return probes.health();
    }

    /** The epochs attached to the hot table, oldest first: a small number when maintenance runs. */
    public List<Integer> liveEpochs() {
        return call("epochs", epochs::live);
    }

    private void held(Message message, String what, java.util.function.ToIntFunction<Handle> update) {
        // One statement, committed as it ends, as in updateHeld; and, as there, a second look when it changed nothing:
        // PostgreSQL 18.1 could skip a row the statement waited for.
        int rows = statement(what, update::applyAsInt);
        if (rows == 0) {
            rows = statement(what, update::applyAsInt);
        }
        if (rows == 0) {
            throw new LeaseLostException(message.id(), message.attempt());
        }
        if (rows > 1) {
            throw new IllegalStateException(what + " of message " + message.id() + " changed " + rows + " rows");
        }
    }

    /**
     * Runs {@code body} in a transaction of its own, and again at once (up to {@value #CONFLICT_TRIES} tries) when
     * the database aborted it for a conflict with another transaction: a seal that moved one of its rows to a newer
     * epoch, a deadlock, or an epoch switch its insert half saw ({@link SqlFailures#epochSwitch}). None means the
     * database is away, and backing off for them would stall claims.
     */
    private <T> T transaction(String what, HandleCallback<T, RuntimeException> body) {
        return retryingConflicts(what, () -> jdbi.inTransaction(body));
    }

    /**
     * As {@link #transaction}, for a body of one statement: it runs without a transaction around it, so it commits as
     * it ends, in the same round trip to the server, rather than in a second one.
     */
    private <T> T statement(String what, HandleCallback<T, RuntimeException> body) {
        return retryingConflicts(what, () -> jdbi.withHandle(body));
    }

    private static <T> T retryingConflicts(String what, java.util.function.Supplier<T> body) {
        for (int tried = 1; ; tried++) {
            try {
                return body.get();
            } catch (RuntimeException e) {
                if (!SqlFailures.retryAtOnce(e) || tried == CONFLICT_TRIES) {
                    throw SqlFailures.translate(what, e);
                }
            }
        }
    }

    static <T> T call(String what, java.util.concurrent.Callable<T> body) {
        try {
            return body.call();
        } catch (Exception e) {
            throw SqlFailures.translate(what, e);
        }
    }

    /** Stops the wake-up threads. The data source is the caller's to close. */
    @Override
    public void close() {
        wakeups.close();
    }

    static OffsetDateTime ts(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    /** @throws IllegalArgumentException if {@code queue} is not a name a queue can have, saying what one is */
    public static void checkName(String queue) {
        if (queue == null || !NAME.matcher(queue).matches()) {
            throw new IllegalArgumentException("a queue name is 1-63 lower-case letters, digits, '_', '.' or '-', "
                    + "starting with a letter or digit; got '" + queue + "'");
        }
    }
}
