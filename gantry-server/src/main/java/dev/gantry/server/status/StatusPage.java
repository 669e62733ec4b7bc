package dev.gantry.server.status;

import dev.gantry.server.fleet.ImagePools;
import dev.gantry.server.fleet.Leadership;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status page's service: a background evaluation on this server every {@link StatusSettings#evaluateEvery()},
 * and the last {@link StatusReport} it made, which is all a request reads ({@link #current()}), so that the page
 * answers at once and while the database does not.
 *
 * <p>Each evaluation samples this server's request meters, reads the figures in one read-only snapshot, writes this
 * server's request counts (the write is also the probe that the database takes writes), judges the figures by
 * {@code StateRules}, and, on the server that holds the {@value #LEADERSHIP_ROLE} leadership, records incidents.
 * When the database cannot be read, the database row is a major outage and the other rows turn
 * {@link ComponentState#UNKNOWN}, keeping their last figures; when it can be read but not written, a partial outage
 * and the other rows as measured. An evaluation that hangs (a database that takes connections and never answers) is
 * noticed by {@link #current()} itself after {@link #hungAfter()}.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once (it stops the loop and hands the leadership over).
 * Thread-safe: the loop runs on one thread of its own; {@link #current()} and {@link #addNote} may be called from
 * any.
 */
public final class StatusPage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatusPage.class);

    /** The row of {@code gantry.leadership} whose holder opens and closes incidents. */
    public static final String LEADERSHIP_ROLE = "status-page";
    /** The longest a statement of an evaluation may run. */
    static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(10);
    /** The least time an evaluation may run before {@link #current()} reports the database as not answering. */
    static final Duration MIN_HUNG_AFTER = Duration.ofSeconds(15);
    /** How long the loop's thread is given to finish an evaluation at {@link #close()}. */
    static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final Jdbi jdbi;
    private final StatusSettings settings;
    private final InstantSource clock;
    private final List<String> knownClasses;
    private final SliReader reader;
    private final RequestCounts counts;
    private final IncidentBook book;
    private final Leadership leadership;
    private final Episodes episodes = new Episodes();
    private final ScheduledExecutorService loop;

    private volatile StatusReport report;
    /** The last report made from figures that could be read: what stale rows still show. */
    private volatile StatusReport lastFresh;
    /** When the evaluation under way started; null between evaluations. */
    private volatile Instant evaluating;
    /** Since when reads or writes fail, as the loop saw it; loop thread only. */
    private Instant troubleSince;

    /**
     * @param meters       the registry whose {@code http.server.requests} times this server's requests
     * @param server       this server's instance id: its request rows and its name in the leadership row
     * @param pools        which pool each executor's jobs run in, for the job-start rows
     * @param knownClasses the resource classes jobs may name, smallest first; each gets a row even when idle
     */
    public StatusPage(Jdbi jdbi, MeterRegistry meters, StatusSettings settings, String server, ImagePools pools,
                      List<String> knownClasses, InstantSource clock) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.knownClasses = List.copyOf(knownClasses);
        this.reader = new SliReader(settings, pools);
        Duration period = RequestCounts.periodFor(settings.shortWindow());
        this.counts = new RequestCounts(meters, server, period, settings.longWindow().plus(period));
        this.book = new IncidentBook(jdbi);
        this.leadership = new Leadership(jdbi, LEADERSHIP_ROLE, server, settings.evaluateEvery().multipliedBy(4),
                clock);
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gantry-status");
            t.setDaemon(true);
            return t;
        });
        this.report = notYet(clock.instant());
        this.lastFresh = report;
    }

    /** Starts evaluating: the first evaluation at once, in the background. Returns this page. */
    public StatusPage start() {
        loop.scheduleWithFixedDelay(this::evaluate, 0, settings.evaluateEvery().toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * The page as the last evaluation left it; if an evaluation has been waiting for the database longer than
     * {@link #hungAfter()}, the database row says so and the other rows are unknown. Never touches the database.
     */
    public StatusReport current() {
        StatusReport r = report;
        Instant started = evaluating;
        if (started == null) {
            return r;
        }
        Instant now = clock.instant();
        Duration waiting = Duration.between(started, now);
        if (waiting.compareTo(hungAfter()) <= 0) {
            return r;
        }
        Instant since = r.staleSince() != null && r.staleSince().isBefore(started) ? r.staleSince() : started;
        DatabaseHealth hung = new DatabaseHealth(now, false, false, null, "it has not answered for "
                + Texts.duration(waiting), since);
        return stale(lastFresh, hung, since, r.incidents(), now);
    }

    /** How long an evaluation may run before {@link #current()} says the database does not answer. */
    Duration hungAfter() {
        Duration three = settings.evaluateEvery().multipliedBy(3);
        return three.compareTo(MIN_HUNG_AFTER) > 0 ? three : MIN_HUNG_AFTER;
    }

    /**
     * Adds {@code author}'s note to the incident {@code incidentId}; the page shows it at once on this server and
     * after their next evaluation on the others.
     *
     * @throws dev.gantry.server.http.ApiException 400 for an unusable message, 404 for an unknown incident
     */
    public Incident addNote(UUID incidentId, String author, String message) {
        Incident noted = book.addNote(incidentId, author, message, clock.instant());
        StatusReport r = report;
        List<Incident> incidents = r.incidents().stream().map(i -> i.id().equals(noted.id()) ? noted : i).toList();
        report = new StatusReport(r.evaluatedAt(), r.overall(), r.components(), incidents, r.shortWindow(),
                r.longWindow(), r.staleSince());
        return noted;
    }

    /** One evaluation; the loop calls it, tests may too. Never throws. */
    void evaluate() {
        Instant now = clock.instant();
        evaluating = now;
        try {
            evaluateAt(now);
        } catch (RuntimeException bug) {
            // Not the database failing (that is handled below): keep the last page and try again next time.
            LOG.error("Status: the evaluation failed; the page keeps its last state", bug);
        } finally {
            evaluating = null;
        }
    }

    private record Read(Measurements measurements, List<Incident> incidents) {
    }

    private void evaluateAt(Instant now) {
        counts.sample(now);
        Read read;
        try {
            read = jdbi.inTransaction(TransactionIsolationLevel.REPEATABLE_READ, h -> {
                h.execute("SET TRANSACTION READ ONLY");
                limitStatements(h);
                return new Read(reader.read(h, now), book.recent(h));
            });
        } catch (RuntimeException e) {
            unreadable(now, e);
            return;
        }
        DatabaseHealth health = writeCounts(now);
        List<ComponentStatus> rows = new ArrayList<>(StateRules.components(read.measurements(), settings,
                knownClasses));
        rows.add(StateRules.database(health));
        episodes.observe(now, rows);
        List<Incident> incidents = health.writable() ? recordIfLeading(rows, now, read.incidents())
                : read.incidents();
        StatusReport fresh = report(now, rows, incidents, null);
        lastFresh = fresh;
        report = fresh;
    }

    private DatabaseHealth writeCounts(Instant now) {
        long start = System.nanoTime();
        try {
            List<Instant> written = jdbi.inTransaction(h -> {
                limitStatements(h);
                return counts.write(h);
            });
            counts.written(written);
            if (troubleSince != null) {
                LOG.info("Status: the database takes reads and writes again (failing since {})", troubleSince);
                troubleSince = null;
            }
            return DatabaseHealth.healthy(clock.instant(), Duration.ofNanos(System.nanoTime() - start));
        } catch (RuntimeException e) {
            String failure = DatabaseHealth.describe(e);
            if (troubleSince == null) {
                troubleSince = now;
                LOG.warn("Status: the database answers reads but refuses writes: {}", failure, e);
            }
            return new DatabaseHealth(clock.instant(), true, false, null, failure, troubleSince);
        }
    }

    private void unreadable(Instant now, RuntimeException e) {
        String failure = DatabaseHealth.describe(e);
        if (troubleSince == null) {
            troubleSince = now;
            LOG.warn("Status: the database cannot be read: {}", failure, e);
        }
        DatabaseHealth health = new DatabaseHealth(clock.instant(), false, false, null, failure, troubleSince);
        StatusReport stale = stale(lastFresh, health, troubleSince, report.incidents(), now);
        episodes.observe(now, stale.components());
        report = report(now, stale.components(), stale.incidents(), troubleSince);
    }

    /** The incidents after this server, if it leads, recorded what it saw; else {@code incidents} as read. */
    private List<Incident> recordIfLeading(List<ComponentStatus> rows, Instant now, List<Incident> incidents) {
        try {
            if (!leadership.look(true)) {
                episodes.forgetEnded(); // the leader records what it saw
                return incidents;
            }
            book.record(episodes, rows, now);
            episodes.forgetEnded();
            return jdbi.inTransaction(h -> {
                limitStatements(h);
                // Counts older than twice the long window are in no window any server reads.
                h.attach(StatusDao.class).deleteRequestsBefore(now.minus(settings.longWindow().multipliedBy(2))
                        .atOffset(ZoneOffset.UTC));
                return book.recent(h);
            });
        } catch (RuntimeException e) {
            LOG.warn("Status: could not record incidents this time; will try again", e);
            return incidents;
        }
    }

    /** Every row of {@code fresh} but the database's unknown since {@code since}, and the database as {@code db}. */
    private StatusReport stale(StatusReport fresh, DatabaseHealth db, Instant since, List<Incident> incidents,
                               Instant now) {
        List<ComponentStatus> rows = new ArrayList<>();
        for (ComponentStatus row : fresh.components()) {
            if (!row.id().equals(ComponentStatus.DATABASE)) {
                rows.add(StateRules.stale(row, since).since(null));
            }
        }
        rows.add(StateRules.database(db));
        return report(now, rows, incidents, since);
    }

    private StatusReport report(Instant now, List<ComponentStatus> rows, List<Incident> incidents, Instant staleSince) {
        List<ComponentStatus> dated = new ArrayList<>();
        for (ComponentStatus row : rows) {
            Instant since = null;
            if (row.state().isIncident()) {
                since = incidents.stream().filter(i -> i.isOpen() && i.componentId().equals(row.id()))
                        .map(Incident::startedAt).findFirst()
                        .orElseGet(() -> episodes.current(row.id()).map(Episodes.Episode::start).orElse(null));
            }
            dated.add(row.since(since));
        }
        return new StatusReport(now, ComponentState.overall(dated.stream().map(ComponentStatus::state).toList()),
                dated, incidents, settings.shortWindow(), settings.longWindow(), staleSince);
    }

    /** The page before the first evaluation: nothing measured yet. */
    private StatusReport notYet(Instant now) {
        Measurements none = new Measurements(now, Measurements.Traffic.NONE, Measurements.Intake.NONE, List.of(),
                Measurements.Traffic.NONE, Measurements.Traffic.NONE);
        List<ComponentStatus> rows = new ArrayList<>();
        for (ComponentStatus row : StateRules.components(none, settings, knownClasses)) {
            rows.add(row.state() == ComponentState.NO_DATA ? row
                    : row.with(ComponentState.UNKNOWN, "not measured yet: this server has just started"));
        }
        rows.add(new ComponentStatus(ComponentStatus.DATABASE, "Database", ComponentStatus.GROUP_DATABASE,
                ComponentState.UNKNOWN, "not measured yet: this server has just started", List.of(), null));
        return new StatusReport(now, ComponentState.UNKNOWN, rows, List.of(), settings.shortWindow(),
                settings.longWindow(), null);
    }

    private static void limitStatements(Handle h) {
        h.execute("SET LOCAL statement_timeout = " + STATEMENT_TIMEOUT.toMillis());
    }

    /** Stops the loop (letting an evaluation under way finish) and hands the leadership over. Idempotent. */
    @Override
    public void close() {
        if (loop.isShutdown()) {
            return;
        }
        loop.shutdown();
        try {
            if (!loop.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                loop.shutdownNow();
            }
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
        }
        try {
            leadership.resign();
        } catch (RuntimeException e) {
            // Another server takes over once the row stands still: a failed resign only delays that.
            LOG.warn("Status: could not hand the status page's leadership over: {}", e.toString());
        }
    }
}
