package dev.gantry.server.pipeline;

import dev.gantry.queue.Queues;
import dev.gantry.server.project.ProjectSlug;
import java.time.InstantSource;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code POST /pipeline} as its route calls it, without HTTP: for the deterministic simulation test
 * (dev.gantry.server.dst).
 */
public final class TriggerCalls {
    /** A trigger's answer: the pipeline id and number, and whether this call made it (201) or found it (200). */
    public record Answer(UUID pipelineId, long number, boolean created) {
    }

    private final PipelineTriggers triggers;

    public TriggerCalls(Jdbi jdbi, Queues queues, InstantSource clock) {
        this.triggers = new PipelineTriggers(jdbi, queues, clock);
    }

    /** Triggers a pipeline of {@code branch} with {@code Idempotency-Key: key}. */
    public Answer trigger(ProjectSlug slug, String branch, String key) {
        PipelineTriggers.Triggered t = triggers.trigger(slug, new TriggerRequest(GitRef.branch(branch), null,
                new TreeMap<>()), Optional.of(new IdempotencyKey(key)), "admin");
        return new Answer(t.pipeline().id(), t.pipeline().number(), t.created());
    }
}
