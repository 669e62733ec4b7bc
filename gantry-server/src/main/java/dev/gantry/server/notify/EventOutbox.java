package dev.gantry.server.notify;

import dev.gantry.notify.Event;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.ProjectSlug;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.config.JdbiConfig;

/**
 * Where state changes report what destinations should hear: {@link #workflowStarted}, {@link #workflowCompleted},
 * {@link #jobCompleted} and {@link #budgetAlert} (an organization's, below), called in the transaction of the change.
 * When the project has a webhook for the event or another destination ({@link Destinations}) that may want it, the event is recorded once with a snapshot of the
 * workflow, pipeline and job as they are now, one delivery per webhook or destination that wants it (a destination's
 * rule decides here, in the transaction), and its first turn on the {@link DeliveryQueue} (a message on {@link #QUEUE},
 * directly or through the relay to a queue shard) with a unique key per delivery (so per event and destination): a
 * transaction that is
 * retried or repeated reports nothing twice, and one that rolls back reports nothing. A project without webhooks
 * costs one indexed lookup.
 *
 * <p>It rides on the {@link Jdbi} as a config ({@link #install}) rather than being passed to every class that ends a
 * job or a workflow (the orchestrator, the agent protocol, the lease sweeper, cancels, the planner): they all hold a
 * {@link Handle} already. A Jdbi without it (tests that build their own) reports nothing.
 */
public final class EventOutbox implements JdbiConfig<EventOutbox> {
    /** The queue of webhook deliveries; a message's payload is {@code DELIVERY-ID:TURN}. */
    public static final String QUEUE = "notify-webhook";
    /** Queue attempts per message: each is a database hiccup or a crash, never a failure of the endpoint. */
    static final int MESSAGE_ATTEMPTS = 25;

    private DeliveryQueue deliveries;
    private ExternalUrl externalUrl;

    public EventOutbox() {
    }

    private EventOutbox(EventOutbox other) {
        this.deliveries = other.deliveries;
        this.externalUrl = other.externalUrl;
    }

    @Override
    public EventOutbox createCopy() {
        return new EventOutbox(this);
    }

    /** Makes the handles of {@code jdbi} queue deliveries on {@code deliveries}, with links under {@code externalUrl}. */
    public static void install(Jdbi jdbi, DeliveryQueue deliveries, ExternalUrl externalUrl) {
        EventOutbox outbox = jdbi.getConfig(EventOutbox.class);
        outbox.deliveries = deliveries;
        outbox.externalUrl = externalUrl;
    }

    /** The workflow was made and runs (a new pipeline's, or a rerun), in {@code h}'s transaction. */
    public static void workflowStarted(Handle h, UUID workflowId, OffsetDateTime now) {
        EventOutbox outbox = h.getConfig(EventOutbox.class);
        if (outbox.deliveries != null) {
            outbox.record(h, Event.Type.WORKFLOW_STARTED, workflowId, null, now);
        }
    }

    /** The workflow reached a final status, in {@code h}'s transaction. */
    public static void workflowCompleted(Handle h, UUID workflowId, OffsetDateTime now) {
        EventOutbox outbox = h.getConfig(EventOutbox.class);
        if (outbox.deliveries != null) {
            outbox.record(h, Event.Type.WORKFLOW_COMPLETED, workflowId, null, now);
        }
    }

    /** The jobs reached final statuses, in {@code h}'s transaction. */
    public static void jobsCompleted(Handle h, List<UUID> jobIds, OffsetDateTime now) {
        for (UUID jobId : jobIds) {
            jobCompleted(h, jobId, now);
        }
    }

    /** The job reached a final status, in {@code h}'s transaction. */
    public static void jobCompleted(Handle h, UUID jobId, OffsetDateTime now) {
        EventOutbox outbox = h.getConfig(EventOutbox.class);
        if (outbox.deliveries != null) {
            outbox.record(h, Event.Type.JOB_COMPLETED, null, jobId, now);
        }
    }

    /**
     * The usage budget alert {@code alertId} of {@code organization} was recorded, in {@code h}'s transaction: one
     * event for it and a delivery to each Slack and e-mail destination of the organization's projects that asks for
     * budget alerts ({@link Destinations#deliverBudgetAlert}), linking to the usage page of the organization and the
     * alert's month; nothing when none does.
     */
    public static void budgetAlert(Handle h, UUID alertId, String organization, Event.Budget budget,
                                   OffsetDateTime now) {
        EventOutbox outbox = h.getConfig(EventOutbox.class);
        if (outbox.deliveries == null) {
            return;
        }
        List<DestinationDao.DestinationRow> destinations = Destinations.wantingBudgetAlerts(h, organization);
        if (destinations.isEmpty()) {
            return;
        }
        Event.Snapshot snapshot = Event.Snapshot.budgetAlert(
                new Event.Organization(ProjectSlug.organizationId(organization), organization),
                budget.withUrl(outbox.usageUrl(organization, YearMonth.parse(budget.month()))));
        // An organization's event, of no one project.
        Optional<UUID> eventId = h.attach(NotifyDao.class).insertEvent(UUID.randomUUID(),
                Event.Type.BUDGET_ALERT.word(), alertId, null, now, Event.snapshotJson(snapshot));
        if (eventId.isEmpty()) {
            return;
        }
        outbox.deliveries.enqueueAll(h, Destinations.deliverBudgetAlert(h, eventId.get(), organization,
                destinations, now));
    }

    private void record(Handle h, Event.Type type, UUID workflowId, UUID jobId, OffsetDateTime now) {
        Optional<SnapshotRow> row = h.createQuery(SnapshotRow.SQL).bind("workflowId", workflowId)
                .bind("jobId", jobId).bind("type", type.word()).map(SnapshotRow::map).findOne();
        if (row.isEmpty()) {
            return; // no webhook of the project asks for it
        }
        SnapshotRow r = row.get();
        NotifyDao dao = h.attach(NotifyDao.class);
        UUID subject = jobId != null ? jobId : workflowId;
        Optional<UUID> eventId = dao.insertEvent(UUID.randomUUID(), type.word(), subject, r.projectId(), now,
                Event.snapshotJson(r.snapshot(workflowUrl(r))));
        if (eventId.isEmpty()) {
            return;
        }
        List<DeliveryQueue.Turn> turns = new ArrayList<>();
        for (NotifyDao.NewDelivery d : dao.insertDeliveries(eventId.get(), r.projectId(), type.word(), now)) {
            turns.add(new DeliveryQueue.Turn(d.id(), r.projectId(), 0, null, r.organization()));
        }
        for (UUID d : Destinations.deliver(h, eventId.get(), r.projectId(), type, r.workflowStatus(),
                r.previousStatus(), r.branch(), now)) {
            turns.add(new DeliveryQueue.Turn(d, r.projectId(), 0, null, r.organization()));
        }
        deliveries.enqueueAll(h, turns);
    }

    /** The web UI's usage page of {@code organization} over the whole {@code month}. */
    private String usageUrl(String organization, YearMonth month) {
        return externalUrl.of("/usage?org=" + URLEncoder.encode(organization, StandardCharsets.UTF_8) + "&from="
                + month.atDay(1) + "&to=" + month.atEndOfMonth());
    }

    private String workflowUrl(SnapshotRow r) {
        return externalUrl.of("/pipelines/" + new ProjectSlug(r.organization(), r.projectName()) + "/"
                + r.pipelineNumber());
    }

    /** What the snapshot is made of, read in the transaction of the change. */
    private record SnapshotRow(UUID projectId, String projectName, String organization, UUID pipelineId,
                               long pipelineNumber, OffsetDateTime pipelineCreatedAt, String triggerType,
                               OffsetDateTime triggerReceivedAt, String triggerActor, String vcsProvider,
                               String originUrl, String targetUrl, String vcsUrl, String revision, String branch,
                               String tag, UUID workflowId, String workflowName, String workflowStatus,
                               OffsetDateTime workflowCreatedAt, OffsetDateTime workflowStoppedAt, UUID jobId,
                               Long jobNumber, String jobName, String jobStatus, OffsetDateTime jobStartedAt,
                               OffsetDateTime jobStoppedAt, String previousStatus) {
        // Found by the workflow's id, or by the job's (and then its workflow); only when a webhook asks for the type
        // or a destination may. previous_status: the last finished run of the workflow on the branch, for "fixed".
        static final String SQL = """
                SELECT pr.id AS project_id, pr.name AS project_name, pr.organization, p.id AS pipeline_id,
                       p.number AS pipeline_number, p.created_at AS pipeline_created_at, p.trigger_type,
                       p.trigger_received_at, p.trigger_actor, p.vcs_provider, p.origin_repository_url,
                       p.target_repository_url, pr.vcs_url, p.revision, p.branch, p.tag,
                       w.id AS workflow_id, w.name AS workflow_name, w.status AS workflow_status,
                       w.created_at AS workflow_created_at, w.stopped_at AS workflow_stopped_at,
                       j.id AS job_id, j.number AS job_number, j.name AS job_name, j.status AS job_status,
                       j.started_at AS job_started_at, j.stopped_at AS job_stopped_at,
                       (SELECT w2.status FROM gantry.workflow w2 JOIN gantry.pipeline p2 ON p2.id = w2.pipeline_id
                        WHERE p2.project_id = pr.id AND p2.branch = p.branch AND w2.name = w.name AND w2.id <> w.id
                          AND w2.stopped_at IS NOT NULL AND w2.created_at <= w.created_at
                        ORDER BY p2.number DESC, w2.created_at DESC LIMIT 1) AS previous_status
                FROM gantry.workflow w
                JOIN gantry.pipeline p ON p.id = w.pipeline_id
                JOIN gantry.project pr ON pr.id = p.project_id
                LEFT JOIN gantry.job j ON j.id = CAST(:jobId AS uuid)
                WHERE w.id = coalesce(CAST(:workflowId AS uuid), j.workflow_id)
                  AND (CAST(:jobId AS uuid) IS NULL OR j.id IS NOT NULL)
                  AND (EXISTS (SELECT 1 FROM gantry.webhook h WHERE h.project_id = pr.id AND :type = ANY (h.events))
                       OR EXISTS (SELECT 1 FROM gantry.notify_destination d WHERE d.project_id = pr.id
                                  AND (:type = 'workflow-completed'
                                       OR (:type = 'workflow-started' AND d.kind = 'commit-status'))))
                """;

        static SnapshotRow map(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
                throws java.sql.SQLException {
            long jobNumber = rs.getLong("job_number");
            return new SnapshotRow(rs.getObject("project_id", UUID.class), rs.getString("project_name"),
                    rs.getString("organization"), rs.getObject("pipeline_id", UUID.class),
                    rs.getLong("pipeline_number"), rs.getObject("pipeline_created_at", OffsetDateTime.class),
                    rs.getString("trigger_type"), rs.getObject("trigger_received_at", OffsetDateTime.class),
                    rs.getString("trigger_actor"), rs.getString("vcs_provider"),
                    rs.getString("origin_repository_url"), rs.getString("target_repository_url"),
                    rs.getString("vcs_url"), rs.getString("revision"), rs.getString("branch"), rs.getString("tag"),
                    rs.getObject("workflow_id", UUID.class), rs.getString("workflow_name"),
                    rs.getString("workflow_status"), rs.getObject("workflow_created_at", OffsetDateTime.class),
                    rs.getObject("workflow_stopped_at", OffsetDateTime.class), rs.getObject("job_id", UUID.class),
                    rs.wasNull() ? null : jobNumber, rs.getString("job_name"), rs.getString("job_status"),
                    rs.getObject("job_started_at", OffsetDateTime.class),
                    rs.getObject("job_stopped_at", OffsetDateTime.class), rs.getString("previous_status"));
        }

        Event.Snapshot snapshot(String workflowUrl) {
            String repository = originUrl != null ? originUrl : vcsUrl;
            Event.Job job = jobId == null ? null : new Event.Job(jobId, jobNumber, jobName, jobStatus,
                    time(jobStartedAt), time(jobStoppedAt));
            return new Event.Snapshot(
                    new Event.Project(projectId, projectName, new ProjectSlug(organization, projectName).toString()),
                    new Event.Organization(ProjectSlug.organizationId(organization), organization),
                    new Event.Workflow(workflowId, workflowName, workflowStatus, time(workflowCreatedAt),
                            time(workflowStoppedAt), workflowUrl),
                    new Event.Pipeline(pipelineId, pipelineNumber, time(pipelineCreatedAt),
                            new Event.Trigger(triggerType, time(triggerReceivedAt), new Event.Actor(triggerActor)),
                            new Event.Vcs(vcsProvider, repository, targetUrl != null ? targetUrl : repository,
                                    revision, branch, tag)),
                    job);
        }

        private static String time(OffsetDateTime t) {
            return t == null ? null : Json.time(t.toInstant());
        }
    }
}
