package dev.gantry.server.schedule;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.RequestLocks;
import dev.gantry.server.pipeline.PipelineTrigger;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.project.ProjectDao;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scheduled pipelines: stored, changed and removed through the API, and fired by {@link #fireDue()}, which every
 * server runs every few seconds. Each slot fires exactly once across restarts and servers: due schedules are locked
 * ({@code FOR UPDATE SKIP LOCKED}) so one server handles each; the pipeline of a slot carries the idempotency key
 * {@code schedule:<id>:<slot>}, so a retry after a crash finds it instead of making another; and the schedule moves on
 * only after its slots' pipelines are committed. Thread-safe.
 */
public final class Schedules implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Schedules.class);
    /** How late a slot may fire when missed slots are skipped: a restart or a busy database, not an outage. */
    static final Duration GRACE = Duration.ofMinutes(5);
    /** The most missed slots one pass runs for a schedule that catches up; the rest follow in the next passes. */
    static final int CATCH_UP_BATCH = 50;
    static final String SYSTEM_ACTOR = "system";
    private static final TypeReference<Map<String, Object>> PARAMETERS = new TypeReference<>() { };
    /** How often each server looks for due slots: a slot starts at most this late. */
    static final Duration EVERY = Duration.ofSeconds(5);

    private static final String COLUMNS = """
            s.id, s.project_id, p.organization, p.name AS project_name, s.name, s.description, s.timetable::text,
            s.parameters::text, s.actor, s.catch_up, s.next_run_at, s.last_slot, s.created_at, s.updated_at
            """;

    private final Jdbi jdbi;
    private final PipelineTriggers triggers;
    private final InstantSource clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("schedules").daemon().factory());

    public Schedules(Jdbi jdbi, PipelineTriggers triggers, InstantSource clock) {
        this.jdbi = jdbi;
        this.triggers = triggers;
        this.clock = clock;
    }

    /** Fires due slots every {@link #EVERY} until closed. */
    public Schedules start() {
        timer.scheduleWithFixedDelay(() -> {
            try {
                fireDue();
            } catch (RuntimeException e) {
                LOG.warn("Firing scheduled pipelines failed; trying again in {} s", EVERY.toSeconds(), e);
            }
        }, EVERY.toMillis(), EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public void close() throws InterruptedException {
        timer.shutdown();
        timer.awaitTermination(30, TimeUnit.SECONDS);
    }

    /** What a request asks a schedule to be; null fields of an update stay as they are. */
    record Fields(String name, String description, Timetable timetable, SortedMap<String, Object> parameters,
                  String actor, Boolean catchUp) {
    }

    public Schedule create(ProjectSlug slug, Fields fields) {
        Instant now = now();
        UUID id = UUID.randomUUID();
        return jdbi.inTransaction(h -> {
            UUID projectId = h.attach(ProjectDao.class).find(slug.organization(), slug.name())
                    .orElseThrow(() -> ProjectRoutes.unknown(slug.toString())).id();
            int inserted = h.createUpdate("""
                    INSERT INTO gantry.schedule (id, project_id, name, description, timetable, parameters, actor,
                                                 catch_up, next_run_at, created_at, updated_at)
                    VALUES (:id, :project, :name, :description, CAST(:timetable AS jsonb), CAST(:parameters AS jsonb),
                            :actor, :catchUp, :next, :now, :now)
                    ON CONFLICT ON CONSTRAINT schedule_name DO NOTHING
                    """).bind("id", id).bind("project", projectId).bind("name", fields.name())
                    .bind("description", fields.description() == null ? "" : fields.description())
                    .bind("timetable", Json.write(fields.timetable().json()))
                    .bind("parameters", Json.write(fields.parameters())).bind("actor", fields.actor())
                    .bind("catchUp", fields.catchUp() != null && fields.catchUp())
                    .bind("next", fields.timetable().next(now).atOffset(ZoneOffset.UTC))
                    .bind("now", now.atOffset(ZoneOffset.UTC)).execute();
            if (inserted == 0) {
                throw ApiException.conflict("project " + slug + " has a schedule named "
                        + ApiException.quote(fields.name()) + " already");
            }
            return find(h, id).orElseThrow();
        });
    }

    public Optional<Schedule> find(UUID id) {
        return jdbi.withHandle(h -> find(h, id));
    }

    /** The project's schedules, by name. */
    public List<Schedule> list(ProjectSlug slug) {
        return jdbi.withHandle(h -> {
            h.attach(ProjectDao.class).find(slug.organization(), slug.name())
                    .orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
            return h.createQuery("SELECT " + COLUMNS + " FROM gantry.schedule s JOIN gantry.project p "
                            + "ON p.id = s.project_id WHERE p.organization = :organization AND p.name = :name "
                            + "ORDER BY s.name")
                    .bind("organization", slug.organization()).bind("name", slug.name())
                    .map(Schedules::read).list();
        });
    }

    /** Changes what {@code fields} gives; a new timetable starts from now. */
    public Schedule update(UUID id, Fields fields) {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            RequestLocks.bound(h); // the schedule's row, which firing holds while it triggers
            Schedule old = h.createQuery("SELECT " + COLUMNS + " FROM gantry.schedule s JOIN gantry.project p "
                    + "ON p.id = s.project_id WHERE s.id = :id FOR UPDATE OF s").bind("id", id)
                    .map(Schedules::read).findOne().orElseThrow(() -> unknown(id));
            Timetable timetable = fields.timetable() == null ? old.timetable() : fields.timetable();
            int updated = h.createUpdate("""
                    UPDATE gantry.schedule SET name = :name, description = :description,
                        timetable = CAST(:timetable AS jsonb), parameters = CAST(:parameters AS jsonb), actor = :actor,
                        catch_up = :catchUp, next_run_at = :next, updated_at = :now
                    WHERE id = :id AND NOT EXISTS (SELECT 1 FROM gantry.schedule o
                        WHERE o.project_id = :project AND o.name = :name AND o.id <> :id)
                    """).bind("id", id).bind("project", old.projectId())
                    .bind("name", fields.name() == null ? old.name() : fields.name())
                    .bind("description", fields.description() == null ? old.description() : fields.description())
                    .bind("timetable", Json.write(timetable.json()))
                    .bind("parameters", Json.write(fields.parameters() == null ? old.parameters() : fields.parameters()))
                    .bind("actor", fields.actor() == null ? old.actor() : fields.actor())
                    .bind("catchUp", fields.catchUp() == null ? old.catchUp() : fields.catchUp())
                    .bind("next", (fields.timetable() == null ? old.nextRunAt() : timetable.next(now))
                            .atOffset(ZoneOffset.UTC))
                    .bind("now", now.atOffset(ZoneOffset.UTC)).execute();
            if (updated == 0) {
                throw ApiException.conflict("project " + old.project() + " has a schedule named "
                        + ApiException.quote(fields.name()) + " already");
            }
            return find(h, id).orElseThrow();
        });
    }

    /** @throws ApiException 404 when there is no such schedule */
    public void delete(UUID id) {
        if (jdbi.withHandle(h -> h.createUpdate("DELETE FROM gantry.schedule WHERE id = :id").bind("id", id)
                .execute()) == 0) {
            throw unknown(id);
        }
    }

    /**
     * Fires the slots that are due, on the schedules no other server is firing; returns how many pipelines it
     * started (or found started by an earlier try).
     */
    public int fireDue() {
        Instant now = now();
        return jdbi.inTransaction(h -> {
            List<Schedule> due = h.createQuery("SELECT " + COLUMNS + " FROM gantry.schedule s JOIN gantry.project p "
                    + "ON p.id = s.project_id WHERE s.next_run_at <= :now ORDER BY s.next_run_at LIMIT 20 "
                    + "FOR UPDATE OF s SKIP LOCKED").bind("now", now.atOffset(ZoneOffset.UTC))
                    .map(Schedules::read).list();
            int fired = 0;
            for (Schedule schedule : due) {
                Instant from = schedule.lastSlot() != null ? schedule.lastSlot()
                        : schedule.nextRunAt().minusNanos(1_000);
                List<Instant> slots = schedule.timetable().slots(from, now,
                        schedule.catchUp() ? CATCH_UP_BATCH : Integer.MAX_VALUE);
                Instant last = slots.isEmpty() ? from : slots.getLast();
                for (Instant slot : slots) {
                    if (schedule.catchUp() || !slot.isBefore(now.minus(GRACE))) {
                        fired += fire(schedule, slot, now) ? 1 : 0;
                    } else {
                        LOG.warn("schedule {} of {}: slot {} was missed by more than {}; skipped (catch-up is off)",
                                schedule.name(), schedule.project(), slot, GRACE);
                    }
                }
                Instant next = schedule.timetable().next(schedule.catchUp() && slots.size() == CATCH_UP_BATCH
                        ? last : now);
                h.createUpdate("UPDATE gantry.schedule SET last_slot = :last, next_run_at = :next WHERE id = :id")
                        .bind("last", last.atOffset(ZoneOffset.UTC)).bind("next", next.atOffset(ZoneOffset.UTC))
                        .bind("id", schedule.id()).execute();
            }
            return fired;
        });
    }

    /**
     * Starts the slot's pipeline, or finds the one an earlier try started; false when the trigger is refused for
     * good (its project's parameters no longer fit), which is logged and not tried again.
     */
    private boolean fire(Schedule schedule, Instant slot, Instant now) {
        ObjectNode body = triggerBody(schedule.parameters());
        String key = "schedule:" + schedule.id() + ":" + slot;
        try {
            PipelineTriggers.Triggered triggered = triggers.triggerScheduled(schedule.project(), body,
                    new PipelineTrigger(PipelineTrigger.Type.SCHEDULED_PIPELINE, schedule.actor(), null, now,
                            PipelineTrigger.Vcs.NONE), key);
            LOG.info("schedule {} of {}: slot {} {} pipeline {}", schedule.name(), schedule.project(), slot,
                    triggered.created() ? "started" : "had started", triggered.pipeline().number());
            return true;
        } catch (ApiException refused) {
            LOG.warn("schedule {} of {}: slot {} not started: {}", schedule.name(), schedule.project(), slot,
                    refused.getMessage());
            return false;
        }
    }

    /** A schedule's parameters as a trigger's body: its branch or tag, and the rest as pipeline parameters. */
    static ObjectNode triggerBody(SortedMap<String, Object> parameters) {
        ObjectNode body = Json.MAPPER.createObjectNode();
        ObjectNode pipelineParameters = Json.MAPPER.createObjectNode();
        parameters.forEach((name, value) -> {
            if (name.equals("branch") || name.equals("tag")) {
                body.set(name, Json.MAPPER.valueToTree(value));
            } else {
                pipelineParameters.set(name, Json.MAPPER.valueToTree(value));
            }
        });
        if (!pipelineParameters.isEmpty()) {
            body.set("parameters", pipelineParameters);
        }
        return body;
    }

    /** Checks a schedule's {@code parameters} as a trigger of its pipelines would be checked. */
    static SortedMap<String, Object> checkedParameters(JsonNode node) {
        if (!(node instanceof ObjectNode object)) {
            throw ApiException.invalid("parameters", "\"parameters\" must be an object with \"branch\" or \"tag\" "
                    + "and the pipeline parameters");
        }
        SortedMap<String, Object> parameters = new TreeMap<>(Json.MAPPER.convertValue(object,
                PARAMETERS));
        try {
            PipelineTriggers.checkTrigger(triggerBody(parameters));
        } catch (ApiException e) {
            throw ApiException.invalid("parameters" + e.field().map(f -> "." + f).orElse(""), e.getMessage());
        }
        return parameters;
    }

    static ApiException unknown(UUID id) {
        return ApiException.notFound("no schedule " + id);
    }

    private Optional<Schedule> find(Handle h, UUID id) {
        return h.createQuery("SELECT " + COLUMNS + " FROM gantry.schedule s JOIN gantry.project p "
                + "ON p.id = s.project_id WHERE s.id = :id").bind("id", id).map(Schedules::read).findOne();
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static Schedule read(ResultSet rs, StatementContext ctx) throws SQLException {
        try {
            return new Schedule(rs.getObject("id", UUID.class), rs.getObject("project_id", UUID.class),
                    new ProjectSlug(rs.getString("organization"), rs.getString("project_name")), rs.getString("name"),
                    rs.getString("description"), Timetable.stored(rs.getString("timetable")),
                    new TreeMap<>(Json.MAPPER.readValue(rs.getString("parameters"),
                            PARAMETERS)),
                    rs.getString("actor"), rs.getBoolean("catch_up"), instant(rs, "next_run_at"),
                    instant(rs, "last_slot"), instant(rs, "created_at"), instant(rs, "updated_at"));
        } catch (IOException e) {
            throw new SQLException("a stored schedule's parameters are not JSON", e);
        }
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
