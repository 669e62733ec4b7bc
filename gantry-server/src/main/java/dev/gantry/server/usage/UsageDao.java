package dev.gantry.server.usage;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement on the ledger's tables ({@code usage_charge}, {@code usage_organization}, {@code usage_month},
 * {@code usage_budget_alert}) and the reads of the task records it charges from.
 */
@RegisterConstructorMapper(TaskRecord.class)
public interface UsageDao {
    /** The task attempt's record; empty when there is no such task (a retry withdrawn with its tasks). */
    @SqlQuery("""
            SELECT t.job_id, t.node_index, j.attempt, p.organization, p.id AS project_id, p.name AS project_name,
                   j.name AS job_name, coalesce(w.started_by, pl.trigger_actor) AS actor, j.resource_class,
                   t.agent_id, t.status, t.started_at, t.accepted_at, t.stopped_at, t.given_up_at
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            JOIN gantry.workflow w ON w.id = j.workflow_id
            JOIN gantry.pipeline pl ON pl.id = w.pipeline_id
            JOIN gantry.project p ON p.id = j.project_id
            WHERE t.job_id = :jobId AND t.node_index = :nodeIndex
            """)
    Optional<TaskRecord> task(UUID jobId, int nodeIndex);

    /** Whether {@code organization}'s task ends are charged as they happen: yes unless switched off. */
    @SqlQuery("""
            SELECT coalesce((SELECT charging FROM gantry.usage_organization WHERE organization = :organization), true)
            """)
    boolean charging(String organization);

    /** The organization's monthly budget in credits, if it has one. */
    @SqlQuery("""
            SELECT monthly_budget_credits FROM gantry.usage_organization
            WHERE organization = :organization AND monthly_budget_credits IS NOT NULL
            """)
    Optional<Long> budget(String organization);

    /** Writes the charge unless the task attempt is charged already; 1 when it wrote it. */
    @SqlUpdate("""
            INSERT INTO gantry.usage_charge (job_id, node_index, attempt, organization, project_id, project_name,
                                             job_name, actor, resource_class, agent_id, started_at, ended_at, run_ms,
                                             minutes, credits_per_minute, credits, day, charged_at, backfilled,
                                             counted_at)
            VALUES (:c.jobId, :c.nodeIndex, :c.attempt, :c.organization, :c.projectId, :c.projectName, :c.jobName,
                    :c.actor, :c.resourceClass, CAST(:c.agentId AS uuid), :startedAt, :endedAt, :c.runMs, :c.minutes,
                    :c.creditsPerMinute, :c.credits, :c.day, :now, :backfilled,
                    CASE WHEN :c.credits = 0 THEN CAST(:now AS timestamptz) END)
            ON CONFLICT (job_id, node_index) DO NOTHING
            """)
    int insert(@BindMethods("c") Charge c, OffsetDateTime startedAt, OffsetDateTime endedAt, OffsetDateTime now,
               boolean backfilled);

    /** A charge counted into its organization's month just now. */
    record Counted(String organization, LocalDate day, long credits) {
    }

    /**
     * Marks the charge of the task attempt counted, unless it is already: the charge's credits, once; empty when
     * it was counted before (a message run twice) or there is no such charge.
     */
    @SqlQuery("""
            UPDATE gantry.usage_charge SET counted_at = :now
            WHERE job_id = :jobId AND node_index = :nodeIndex AND counted_at IS NULL
            RETURNING organization, day, credits
            """)
    @RegisterConstructorMapper(Counted.class)
    Optional<Counted> count(UUID jobId, int nodeIndex, OffsetDateTime now);

    /**
     * Adds {@code credits} to the organization's month and returns the month's new total. Takes the month row's
     * lock until the transaction ends: charges of one organization take turns here, so each sees the total it moves
     * from, and a budget change that comes meanwhile waits (or is seen).
     */
    @SqlQuery("""
            INSERT INTO gantry.usage_month (organization, month, credits) VALUES (:organization, :month, :credits)
            ON CONFLICT (organization, month) DO UPDATE SET credits = usage_month.credits + EXCLUDED.credits
            RETURNING credits
            """)
    long addToMonth(String organization, LocalDate month, long credits);

    /**
     * Records the crossing of a threshold unless it is recorded for the month already; the new alert's id, or empty
     * when it was recorded before.
     */
    @SqlQuery("""
            INSERT INTO gantry.usage_budget_alert (organization, month, threshold_percent, budget_credits, credits,
                                                   crossed_at)
            VALUES (:organization, :month, :percent, :budget, :credits, :now)
            ON CONFLICT (organization, month, threshold_percent) DO NOTHING
            RETURNING id
            """)
    Optional<UUID> recordAlert(String organization, LocalDate month, int percent, long budget, long credits,
                               OffsetDateTime now);

    /** A task that ended, as the backfill pages through them. */
    record Ended(UUID jobId, int nodeIndex, Instant endedAt) {
    }

    /**
     * Tasks that ended in [{@code from}, {@code to}) with no charge yet, of {@code organization} (null: of all),
     * after the one {@code after} in the order of their end. Only narrows: {@link UsageRule} decides.
     */
    @SqlQuery("""
            SELECT t.job_id, t.node_index, coalesce(t.given_up_at, t.stopped_at) AS ended_at
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            JOIN gantry.project p ON p.id = j.project_id
            WHERE t.accepted_at IS NOT NULL
              AND coalesce(t.given_up_at, t.stopped_at) >= :from AND coalesce(t.given_up_at, t.stopped_at) < :to
              AND (coalesce(t.given_up_at, t.stopped_at), t.job_id, t.node_index) > (:afterEnd, :afterJob, :afterNode)
              AND (CAST(:organization AS text) IS NULL OR p.organization = :organization)
              AND NOT EXISTS (SELECT 1 FROM gantry.usage_charge u
                              WHERE u.job_id = t.job_id AND u.node_index = t.node_index)
            ORDER BY 3, 1, 2
            LIMIT :limit
            """)
    @RegisterConstructorMapper(Ended.class)
    List<Ended> uncharged(String organization, OffsetDateTime from, OffsetDateTime to, OffsetDateTime afterEnd,
                          UUID afterJob, int afterNode, int limit);

    /** An organization's ledger settings. */
    record Settings(String organization, boolean charging, Long monthlyBudgetCredits, Instant updatedAt,
                    String updatedBy) {
    }

    @SqlQuery("""
            SELECT organization, charging, monthly_budget_credits, updated_at, updated_by
            FROM gantry.usage_organization WHERE organization = :organization
            """)
    @RegisterConstructorMapper(Settings.class)
    Optional<Settings> settings(String organization);

    @SqlUpdate("""
            INSERT INTO gantry.usage_organization (organization, charging, updated_at, updated_by)
            VALUES (:organization, :charging, :now, :actor)
            ON CONFLICT (organization) DO UPDATE
            SET charging = EXCLUDED.charging, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
            """)
    void setCharging(String organization, boolean charging, OffsetDateTime now, String actor);

    @SqlUpdate("""
            INSERT INTO gantry.usage_organization (organization, monthly_budget_credits, updated_at, updated_by)
            VALUES (:organization, :credits, :now, :actor)
            ON CONFLICT (organization) DO UPDATE
            SET monthly_budget_credits = EXCLUDED.monthly_budget_credits, updated_at = EXCLUDED.updated_at,
                updated_by = EXCLUDED.updated_by
            """)
    void setBudget(String organization, Long credits, OffsetDateTime now, String actor);

    /** One line of a report: a day's charges of one project and class. */
    record Line(String organization, String projectName, String resourceClass, LocalDate day, long tasks, long runMs,
                long minutes, long credits) {
    }

    /**
     * The charges of the days [{@code from}, {@code to}], summed per organization, project, resource class and day,
     * of the organizations {@code organizations} (all of them with {@code everyOrganization}), optionally only of one
     * organization, project or class.
     */
    @SqlQuery("""
            SELECT organization, project_name, resource_class, day, count(*) AS tasks, sum(run_ms) AS run_ms,
                   sum(minutes) AS minutes, sum(credits) AS credits
            FROM gantry.usage_charge
            WHERE day BETWEEN :from AND :to
              AND (:everyOrganization OR organization = ANY(:organizations))
              AND (CAST(:organization AS text) IS NULL OR organization = :organization)
              AND (CAST(:project AS text) IS NULL OR project_name = :project)
              AND (CAST(:resourceClass AS text) IS NULL OR resource_class = :resourceClass)
            GROUP BY organization, project_name, resource_class, day
            ORDER BY organization, project_name, resource_class, day
            """)
    @RegisterConstructorMapper(Line.class)
    List<Line> lines(LocalDate from, LocalDate to, boolean everyOrganization, String[] organizations,
                     String organization, String project, String resourceClass);

    /**
     * A recorded budget alert with the states of its deliveries (docs/notifications.md): none when no destination
     * asked for it (retention keeps them as long as the alert).
     */
    record Alert(String organization, LocalDate month, int thresholdPercent, long budgetCredits, long credits,
                 Instant crossedAt, int pending, int delivered, int dead) {
    }

    // The deliveries are the notifier's rows (EventOutbox.budgetAlert): read here, never written.
    @SqlQuery("""
            SELECT a.organization, a.month, a.threshold_percent, a.budget_credits, a.credits, a.crossed_at,
                   count(d.id) FILTER (WHERE d.state = 'pending') AS pending,
                   count(d.id) FILTER (WHERE d.state = 'delivered') AS delivered,
                   count(d.id) FILTER (WHERE d.state = 'dead') AS dead
            FROM gantry.usage_budget_alert a
            LEFT JOIN gantry.notify_event e ON e.type = 'budget-alert' AND e.subject_id = a.id
            LEFT JOIN gantry.notify_delivery d ON d.event_id = e.id
            WHERE a.month BETWEEN date_trunc('month', CAST(:from AS date)) AND :to
              AND (:everyOrganization OR a.organization = ANY(:organizations))
              AND (CAST(:organization AS text) IS NULL OR a.organization = :organization)
            GROUP BY a.organization, a.month, a.threshold_percent
            ORDER BY a.organization, a.month, a.threshold_percent
            """)
    @RegisterConstructorMapper(Alert.class)
    List<Alert> alerts(LocalDate from, LocalDate to, boolean everyOrganization, String[] organizations,
                       String organization);

    /** An organization's month: its credits and its budget (null: none). */
    record Month(String organization, LocalDate month, long credits, Long budgetCredits) {
    }

    @SqlQuery("""
            SELECT m.organization, m.month, m.credits, o.monthly_budget_credits AS budget_credits
            FROM gantry.usage_month m
            LEFT JOIN gantry.usage_organization o ON o.organization = m.organization
            WHERE m.month BETWEEN date_trunc('month', CAST(:from AS date)) AND :to
              AND (:everyOrganization OR m.organization = ANY(:organizations))
              AND (CAST(:organization AS text) IS NULL OR m.organization = :organization)
            ORDER BY m.organization, m.month
            """)
    @RegisterConstructorMapper(Month.class)
    List<Month> months(LocalDate from, LocalDate to, boolean everyOrganization, String[] organizations,
                       String organization);

    /** An organization in a month: its credits so far, its budget (null: none) and whether its tasks are charged. */
    record Standing(String organization, long credits, Long budgetCredits, boolean charging) {
    }

    /**
     * Each organization of {@code organizations} (with {@code everyOrganization}: every one that has a project or
     * ledger settings or charges), or only {@code organization}, in {@code month}.
     */
    @SqlQuery("""
            WITH known AS (
                SELECT unnest(CAST(:organizations AS text[])) AS organization
                UNION SELECT organization FROM gantry.project WHERE :everyOrganization
                UNION SELECT organization FROM gantry.usage_organization WHERE :everyOrganization
                UNION SELECT organization FROM gantry.usage_month WHERE :everyOrganization
                UNION SELECT CAST(:organization AS text) WHERE CAST(:organization AS text) IS NOT NULL
            )
            SELECT k.organization, coalesce(m.credits, 0) AS credits, o.monthly_budget_credits AS budget_credits,
                   coalesce(o.charging, true) AS charging
            FROM known k
            LEFT JOIN gantry.usage_organization o ON o.organization = k.organization
            LEFT JOIN gantry.usage_month m ON m.organization = k.organization AND m.month = :month
            WHERE CAST(:organization AS text) IS NULL OR k.organization = :organization
            ORDER BY k.organization
            """)
    @RegisterConstructorMapper(Standing.class)
    List<Standing> standings(LocalDate month, boolean everyOrganization, String[] organizations, String organization);
}
