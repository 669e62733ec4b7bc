package dev.gantry.server.plan;

import dev.gantry.config.PipelineContext;
import dev.gantry.server.pipeline.Pipeline;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.RepositoryPolicy;
import java.math.BigInteger;
import java.util.Map;

/**
 * The compiler's view of a pipeline: its ref, commit, number, id, parameters, project and trigger
 * ({@code pipeline.trigger_source}, and a pull request's {@code pipeline.git.base_revision}). Pure.
 */
final class PipelineContexts {
    private PipelineContexts() {
    }

    /** The context for compiling {@code pipeline}'s config, read at {@code revision}. */
    static PipelineContext of(Pipeline pipeline, Project project, String revision) {
        return of(pipeline, project, revision, pipeline.parameters());
    }

    /** The context for a setup pipeline's continued config: the pipeline's, with the continuation's parameters. */
    static PipelineContext of(Pipeline pipeline, Project project, String revision, Map<String, Object> parameters) {
        PipelineContext.Builder context = PipelineContext.builder()
                .number(pipeline.number())
                .id(pipeline.id().toString())
                .revision(revision)
                .triggerSource(pipeline.trigger().type().label())
                .projectGitUrl(RepositoryPolicy.withoutCredentials(project.vcsUrl()))
                .projectSlug(project.slug().toString());
        if (pipeline.ref().branch() != null) {
            context.branch(pipeline.ref().branch());
        } else {
            context.tag(pipeline.ref().tag());
        }
        if (pipeline.trigger().vcs().baseRevision() != null) {
            context.baseRevision(pipeline.trigger().vcs().baseRevision());
        }
        for (Map.Entry<String, Object> parameter : parameters.entrySet()) {
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
