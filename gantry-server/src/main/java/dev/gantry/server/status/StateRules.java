package dev.gantry.server.status;

import dev.gantry.server.status.Measurements.Count;
import dev.gantry.server.status.Measurements.JobStarts;
import dev.gantry.server.status.Measurements.Traffic;
import dev.gantry.server.status.Measurements.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules that turn figures into states, all in one place and pure (no I/O, no clock), so that
 * {@code StateRulesTest} pins them and docs/server.md can state them:
 *
 * <ul>
 *   <li><b>Error rates</b> (API, job output, the intake's triggers and plans): over the short window, above
 *       {@value #DEGRADED_PERCENT} % is degraded, from {@value #PARTIAL_PERCENT} % a partial outage, from
 *       {@value #MAJOR_PERCENT} % a major outage. A window with fewer than {@value #MIN_EVENTS} events is not judged
 *       (three requests with one 5xx are not an outage of a third of the API): it shows as operational and says
 *       so.</li>
 *   <li><b>Waits</b> (job starts against the job start objective, plans against the plan objective): over the
 *       objective is degraded, over {@value #PARTIAL_FACTOR} times it a partial outage, over {@value #MAJOR_FACTOR}
 *       times it a major outage. Job starts are judged on the p95 of queued → started over the short window, jobs
 *       still waiting counted with their wait so far (a class nobody serves has no starts, only a growing wait), and
 *       on the oldest waiting job, which makes the row at least degraded once it passes {@value #PARTIAL_FACTOR}
 *       times the objective. Intake is judged on the oldest pipeline waiting for its plan.</li>
 *   <li><b>The database</b>, as this server reaches it: reads failing is a major outage, writes failing (read-only)
 *       a partial outage, a write slower than {@link #SLOW_WRITE} degraded.</li>
 * </ul>
 *
 * The short window alone decides, so a component recovers as soon as the short window is clean; the long window is
 * shown beside it for context.
 */
final class StateRules {
    static final double DEGRADED_PERCENT = 1;
    static final double PARTIAL_PERCENT = 5;
    static final double MAJOR_PERCENT = 25;
    /** The fewest events in the short window for its error rate to count. */
    static final long MIN_EVENTS = 20;
    static final int PARTIAL_FACTOR = 5;
    static final int MAJOR_FACTOR = 15;
    /** A write to the database (one small upsert and its commit) slower than this is degraded. */
    static final Duration SLOW_WRITE = Duration.ofSeconds(1);
    /** The pool a job runs in unless the fleet file pins its image elsewhere (or it is a macOS job). */
    static final String DEFAULT_POOL = "default";

    private StateRules() {
    }

    /** The state of an error rate: {@code count} from the short window. */
    static ComponentState errorRate(Count count) {
        if (count.events() < MIN_EVENTS) {
            return ComponentState.OPERATIONAL;
        }
        double percent = count.ratio() * 100;
        if (percent >= MAJOR_PERCENT) {
            return ComponentState.MAJOR_OUTAGE;
        }
        if (percent >= PARTIAL_PERCENT) {
            return ComponentState.PARTIAL_OUTAGE;
        }
        return percent > DEGRADED_PERCENT ? ComponentState.DEGRADED : ComponentState.OPERATIONAL;
    }

    /** The state of a wait of {@code millis} against {@code objective}. */
    static ComponentState wait(long millis, Duration objective) {
        long limit = objective.toMillis();
        if (millis > limit * MAJOR_FACTOR) {
            return ComponentState.MAJOR_OUTAGE;
        }
        if (millis > limit * PARTIAL_FACTOR) {
            return ComponentState.PARTIAL_OUTAGE;
        }
        return millis > limit ? ComponentState.DEGRADED : ComponentState.OPERATIONAL;
    }

    /**
     * Every row but the database's, in page order.
     *
     * @param knownClasses the resource classes jobs may name, smallest first: each has a row even when idle
     */
    static List<ComponentStatus> components(Measurements m, StatusSettings settings, List<String> knownClasses) {
        List<ComponentStatus> rows = new ArrayList<>();
        rows.add(traffic(ComponentStatus.API, "API", ComponentStatus.GROUP_API, "API request", m.api(), settings));
        rows.add(intake(m.intake(), settings));
        rows.addAll(jobStarts(m.jobStarts(), settings, knownClasses));
        rows.add(traffic(ComponentStatus.JOB_OUTPUT, "Job output", ComponentStatus.GROUP_JOB_OUTPUT,
                "output request", m.output(), settings));
        rows.add(notifications(m.notifications(), settings));
        return rows;
    }

    /** A component judged by the error rate of its requests; {@code noun} is one request's ("API request"). */
    static ComponentStatus traffic(String id, String name, String group, String noun, Traffic traffic,
                                   StatusSettings settings) {
        List<Sli> slis = errorRates(traffic, settings);
        return new ComponentStatus(id, name, group, errorRate(traffic.recent()),
                errorRateReason(traffic.recent(), noun, noun + "s", "failed (5xx)", settings.shortWindow()), slis,
                null);
    }

    /** Notifications: their deliveries, judged as requests are (a failing delivery is a bad event). */
    static ComponentStatus notifications(Traffic deliveries, StatusSettings settings) {
        return new ComponentStatus(ComponentStatus.NOTIFICATIONS, "Notifications",
                ComponentStatus.GROUP_NOTIFICATIONS, errorRate(deliveries.recent()),
                errorRateReason(deliveries.recent(), "notification", "notifications", "failing",
                        settings.shortWindow()),
                errorRates(deliveries, settings), null);
    }

    static ComponentStatus intake(Measurements.Intake intake, StatusSettings settings) {
        ComponentState errors = errorRate(intake.recent());
        ComponentState lag = wait(intake.oldestPendingMillis(), settings.planObjective());
        List<Sli> slis = new ArrayList<>(errorRates(new Traffic(intake.recent(), intake.longer()), settings));
        slis.add(new Sli(Sli.PLAN_LAG, "oldest pipeline waiting for its plan", null, intake.oldestPendingMillis(),
                Sli.Unit.MILLISECONDS, intake.pending(), (double) settings.planObjective().toMillis()));
        String errorReason = errorRateReason(intake.recent(), "trigger or plan", "triggers and plans",
                "failed on the server's side", settings.shortWindow());
        String lagReason = intake.pending() == 0 ? "no pipeline waits for its plan"
                : Texts.counted(intake.pending(), "pipeline") + " waiting for a plan, the oldest for "
                + Texts.duration(Duration.ofMillis(intake.oldestPendingMillis())) + (lag.isIncident()
                ? " against an objective of " + Texts.duration(settings.planObjective())
                : " (objective " + Texts.duration(settings.planObjective()) + ")");
        ComponentState state = ComponentState.worse(errors, lag);
        String reason = lag.isWorseThan(errors) ? lagReason + "; " + errorReason : errorReason + "; " + lagReason;
        return new ComponentStatus(ComponentStatus.INTAKE, "Pipeline intake", ComponentStatus.GROUP_INTAKE, state,
                reason, slis, null);
    }

    /** A row per resource class (every known one, idle or not) and per other pool a class ran in. */
    static List<ComponentStatus> jobStarts(List<JobStarts> figures, StatusSettings settings,
                                           List<String> knownClasses) {
        Map<String, JobStarts> byId = new LinkedHashMap<>();
        for (String c : knownClasses) {
            byId.put(jobStartsId(c, DEFAULT_POOL), new JobStarts(c, DEFAULT_POOL, Waits.NONE, Waits.NONE));
        }
        for (JobStarts f : figures) {
            byId.put(jobStartsId(f.resourceClass(), f.pool()), f);
        }
        List<JobStarts> ordered = new ArrayList<>(byId.values());
        ordered.sort(Comparator.comparingInt((JobStarts f) -> {
                    int known = knownClasses.indexOf(f.resourceClass());
                    return known < 0 ? Integer.MAX_VALUE : known;
                }).thenComparing(JobStarts::resourceClass)
                .thenComparing(f -> !f.pool().equals(DEFAULT_POOL)).thenComparing(JobStarts::pool));
        return ordered.stream().map(f -> jobStarts(f, settings)).toList();
    }

    static ComponentStatus jobStarts(JobStarts f, StatusSettings settings) {
        Duration objective = settings.jobStartObjective();
        Waits recent = f.recent();
        ComponentState byP95 = recent.tasks() == 0 ? ComponentState.OPERATIONAL : wait(recent.p95Millis(), objective);
        // One job stuck for long hides in a busy class's p95; past PARTIAL_FACTOR times the objective it shows.
        boolean stuck = recent.oldestWaitingMillis() > objective.toMillis() * PARTIAL_FACTOR;
        ComponentState state = stuck ? ComponentState.worse(byP95, ComponentState.DEGRADED) : byP95;
        List<Sli> slis = new ArrayList<>();
        slis.add(new Sli(Sli.START_LATENCY_P95, "p95 start latency", settings.shortWindow(), recent.p95Millis(),
                Sli.Unit.MILLISECONDS, recent.tasks(), (double) objective.toMillis()));
        slis.add(new Sli(Sli.START_LATENCY_P95, "p95 start latency", settings.longWindow(), f.longer().p95Millis(),
                Sli.Unit.MILLISECONDS, f.longer().tasks(), null));
        slis.add(new Sli(Sli.QUEUE_AGE, "oldest waiting job", null, recent.oldestWaitingMillis(),
                Sli.Unit.MILLISECONDS, recent.waiting(), (double) objective.toMillis() * PARTIAL_FACTOR));
        String window = "over the last " + Texts.window(settings.shortWindow());
        String reason;
        if (recent.tasks() == 0) {
            reason = "no job waited " + window;
        } else {
            String p95 = "p95 start latency " + Texts.duration(Duration.ofMillis(recent.p95Millis())) + " " + window;
            reason = byP95.isIncident() ? p95 + " against an objective of " + Texts.duration(objective)
                    : p95 + " (objective " + Texts.duration(objective) + "), " + Texts.counted(recent.tasks(), "job");
            if (recent.waiting() > 0) {
                reason += "; " + Texts.count(recent.waiting()) + " waiting, the oldest for "
                        + Texts.duration(Duration.ofMillis(recent.oldestWaitingMillis()));
            }
        }
        boolean defaultPool = f.pool().equals(DEFAULT_POOL);
        String name = "Job starts: " + f.resourceClass() + (defaultPool ? "" : " (" + f.pool() + " pool)");
        return new ComponentStatus(jobStartsId(f.resourceClass(), f.pool()), name, ComponentStatus.GROUP_JOB_STARTS,
                state, reason, slis, null);
    }

    static String jobStartsId(String resourceClass, String pool) {
        return ComponentStatus.JOB_STARTS_PREFIX + resourceClass + (pool.equals(DEFAULT_POOL) ? "" : "/" + pool);
    }

    /** The database as this server's last evaluation reached it. */
    static ComponentStatus database(DatabaseHealth health) {
        List<Sli> slis = health.writeTime() == null ? List.of()
                : List.of(new Sli(Sli.WRITE_LATENCY, "write latency", null, health.writeTime().toMillis(),
                Sli.Unit.MILLISECONDS, 1, (double) SLOW_WRITE.toMillis()));
        String since = health.troubleSince() == null ? "" : " since " + Texts.time(health.troubleSince());
        ComponentState state;
        String reason;
        if (!health.readable()) {
            state = ComponentState.MAJOR_OUTAGE;
            reason = "this server cannot read from the database" + since + ": " + health.failure();
        } else if (!health.writable()) {
            state = ComponentState.PARTIAL_OUTAGE;
            reason = "the database answers reads but refuses writes" + since + ": " + health.failure()
                    + "; nothing new can be triggered or started";
        } else if (health.writeTime().compareTo(SLOW_WRITE) > 0) {
            state = ComponentState.DEGRADED;
            reason = "a write took " + Texts.duration(health.writeTime()) + " against an objective of "
                    + Texts.duration(SLOW_WRITE);
        } else {
            state = ComponentState.OPERATIONAL;
            reason = "reads and writes answer; a write took " + Texts.duration(health.writeTime());
        }
        return new ComponentStatus(ComponentStatus.DATABASE, "Database", ComponentStatus.GROUP_DATABASE, state,
                reason, slis, null);
    }

    /**
     * {@code row} when the figures could not be read since {@code since}: unknown, its last figures kept, its reason
     * saying what it last showed. The database row and rows that were not measured anyway stay as they are.
     */
    static ComponentStatus stale(ComponentStatus row, java.time.Instant since) {
        if (row.id().equals(ComponentStatus.DATABASE) || row.state() == ComponentState.NO_DATA) {
            return row;
        }
        String last = row.state() == ComponentState.UNKNOWN ? "" : " (last seen " + row.state().label()
                .toLowerCase(java.util.Locale.ROOT) + ")";
        return row.with(ComponentState.UNKNOWN, "unknown since " + Texts.time(since)
                + ": the figures cannot be read from the database" + last);
    }

    private static List<Sli> errorRates(Traffic traffic, StatusSettings settings) {
        return List.of(
                new Sli(Sli.ERROR_RATE, "error rate", settings.shortWindow(), traffic.recent().ratio(),
                        Sli.Unit.RATIO, traffic.recent().events(), DEGRADED_PERCENT / 100),
                new Sli(Sli.ERROR_RATE, "error rate", settings.longWindow(), traffic.longer().ratio(),
                        Sli.Unit.RATIO, traffic.longer().events(), null));
    }

    /** @param one the noun for one event ("notification"), {@code many} for more ("notifications") */
    private static String errorRateReason(Count count, String one, String many, String failed, Duration window) {
        String over = " over the last " + Texts.window(window);
        if (count.events() == 0) {
            return "no " + many + over;
        }
        if (count.events() < MIN_EVENTS) {
            return Texts.count(count.events()) + " " + (count.events() == 1 ? one : many) + over + ", "
                    + Texts.count(count.bad()) + " " + failed + ": too few to judge (" + MIN_EVENTS + " needed)";
        }
        String rate = Texts.percent(count.ratio()) + " of " + Texts.count(count.events()) + " " + many + " " + failed
                + over;
        return errorRate(count).isIncident()
                ? rate + " against an objective of at most " + Texts.percent(DEGRADED_PERCENT / 100)
                : rate + " (objective at most " + Texts.percent(DEGRADED_PERCENT / 100) + ")";
    }
}
