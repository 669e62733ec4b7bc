package dev.gantry.server.plan;

import dev.gantry.config.PipelineContext;
import dev.gantry.server.pipeline.Pipeline;
import dev.gantry.server.project.Project;
import java.math.BigInteger;
import java.util.Map;

/** The compiler's view of a pipeline: its ref, commit, number, id, parameters and project. Pure. */
final class PipelineContexts {
    /** What {@code pipeline.trigger_source} says for every pipeline until VCS webhooks and schedules come. */
    static final String TRIGGER_SOURCE = "api";

    private PipelineContexts() {
    }

    /** The context for compiling {@code pipeline}'s config, read at {@code revision}. */
    static PipelineContext of(Pipeline pipeline, Project project, String revision) {
        PipelineContext.Builder context = PipelineContext.builder()
                .number(pipeline.number())
                .id(pipeline.id().toString())
                .revision(revision)
                .triggerSource(TRIGGER_SOURCE)
                .projectGitUrl(project.vcsUrl())
                .projectSlug(project.slug().toString());
        if (pipeline.ref().branch() != null) {
            context.branch(pipeline.ref().branch());
        } else {
            context.tag(pipeline.ref().tag());
        }
        for (Map.Entry<String, Object> parameter : pipeline.parameters().entrySet()) {
            context.parameter(parameter.getKey(), parameterValue(parameter.getValue()));
        }
        return context.build();
    }

    /**
     * A trigger parameter as the compiler takes it: booleans and strings as they are, whole numbers as {@code Long},
     * any other number as the text it was written as (an {@code integer} parameter then refuses it, a
     * {@code string} one takes it).
     */
    static Object parameterValue(Object value) {
        return switch (value) {
            case Boolean b -> b;
            case String s -> s;
            case Integer i -> i.longValue();
            case Long l -> l;
            case Short s -> s.longValue();
            case BigInteger big when big.bitLength() < Long.SIZE -> big.longValue();
            default -> String.valueOf(value);
        };
    }
}
