package dev.gantry.server.plan;

import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.plan.Plan;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanWorkflow;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.pipeline.PipelineError;
import java.util.ArrayList;
import java.util.List;

/**
 * What makes a pipeline errored besides fetching: compile errors, and a plan this server cannot run. Pure; each
 * method returns every problem it finds, not just the first.
 */
final class PlanChecks {
    /** The most errors a pipeline records; a config with more is broken enough that the rest add nothing. */
    static final int MAX_ERRORS = 50;

    private PlanChecks() {
    }

    /** The compiler's errors as the pipeline's, each rendered as the compiler renders it (file:line:column: …). */
    static List<PipelineError> compileErrors(List<Diagnostic> errors) {
        List<PipelineError> out = new ArrayList<>();
        for (Diagnostic error : errors.subList(0, Math.min(errors.size(), MAX_ERRORS))) {
            out.add(new PipelineError(PipelineError.CONFIG, error.format()));
        }
        if (errors.size() > MAX_ERRORS) {
            out.add(new PipelineError(PipelineError.CONFIG, "… and " + (errors.size() - MAX_ERRORS) + " more errors; "
                    + "run 'gantry config validate' on the config to see them all"));
        }
        return out;
    }

    /** The jobs of all of {@code plan}'s workflows, after matrix expansion. */
    static int jobCount(Plan plan) {
        return plan.workflows().stream().mapToInt(w -> w.jobs().size()).sum();
    }

    /**
     * The error of a pipeline whose workflows would have {@code jobs} jobs together, over this server's {@code max}
     * ({@code GANTRY_MAX_PIPELINE_JOBS}); empty within it. {@code what} says whose jobs they are.
     */
    static List<PipelineError> tooManyJobs(int jobs, int max, String what) {
        if (jobs <= max) {
            return List.of();
        }
        return List.of(new PipelineError(PipelineError.PLAN, what + " " + jobs + " jobs (after matrix expansion), "
                + "more than the " + max + " a pipeline may have on this server (GANTRY_MAX_PIPELINE_JOBS); split "
                + "the work into smaller matrices or separate pipelines"));
    }

    /** What in {@code plan} this server cannot run: a build job of a resource class it does not know. */
    static List<PipelineError> unrunnable(Plan plan, ResourceClasses classes) {
        List<PipelineError> out = new ArrayList<>();
        for (PlanWorkflow workflow : plan.workflows()) {
            for (PlanJob job : workflow.jobs()) {
                String resourceClass = PlannedJobs.resourceClass(job);
                if (resourceClass != null && classes.find(resourceClass).isEmpty()) {
                    out.add(new PipelineError(PipelineError.PLAN, "job '" + job.name() + "' of workflow '"
                            + workflow.name() + "' asks for resource class '" + resourceClass + "', which this "
                            + "server does not have; the classes are " + classes.known()));
                }
            }
        }
        return out.size() <= MAX_ERRORS ? out : out.subList(0, MAX_ERRORS);
    }
}
