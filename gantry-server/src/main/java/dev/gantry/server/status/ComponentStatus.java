package dev.gantry.server.status;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One row of the status page: a component, its state, the one-line reason a person reads, and the figures that
 * decided it. Immutable.
 *
 * @param id     stable, for JSON, links and incidents: {@code api}, {@code intake}, {@code job-starts/medium},
 *               {@code job-starts/medium/macos} (class and pool), {@code job-output}, {@code notifications},
 *               {@code database}
 * @param name   for people, e.g. "Job starts: medium"
 * @param group  the heading rows are grouped under: one of the {@code GROUP_} constants
 * @param state  the state the figures put it in
 * @param reason one line for people that names the figure and its objective, e.g. "p95 start latency 7m12s over the
 *               last 5 min against an objective of 2m"
 * @param slis   the figures, short window first; empty for a component that is not measured
 * @param since  when it entered its current incident state (from the open incident, so the same on every server);
 *               null when operational, or when not known
 */
public record ComponentStatus(String id, String name, String group, ComponentState state, String reason,
                              List<Sli> slis, Instant since) {
    public static final String GROUP_API = "API";
    public static final String GROUP_INTAKE = "Pipeline intake";
    public static final String GROUP_JOB_STARTS = "Job starts";
    public static final String GROUP_JOB_OUTPUT = "Job output";
    public static final String GROUP_NOTIFICATIONS = "Notifications";
    public static final String GROUP_DATABASE = "Database";

    public static final String API = "api";
    public static final String INTAKE = "intake";
    public static final String JOB_OUTPUT = "job-output";
    public static final String NOTIFICATIONS = "notifications";
    public static final String DATABASE = "database";
    /** The prefix of the job-start rows' ids, then the resource class and, outside the default pool, the pool. */
    public static final String JOB_STARTS_PREFIX = "job-starts/";

    public ComponentStatus {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(reason, "reason");
        slis = List.copyOf(slis);
    }

    /** The figure named {@code name} (an {@code Sli} constant) over the shortest window it was measured over. */
    public Optional<Sli> sli(String name) {
        return slis.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** This row in {@code state} for {@code reason}, its figures kept (a stale row keeps what it last showed). */
    ComponentStatus with(ComponentState state, String reason) {
        return new ComponentStatus(id, name, group, state, reason, slis, since);
    }

    /** This row with {@link #since()} set. */
    ComponentStatus since(Instant since) {
        return new ComponentStatus(id, name, group, state, reason, slis, since);
    }
}
