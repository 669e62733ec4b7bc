/**
 * The plan builder: from a pending pipeline to its workflows and jobs. {@link dev.gantry.server.plan.PlanBuilder}
 * consumes the {@code pipeline-plan} queue, reads the config at the pipeline's commit through a
 * {@link dev.gantry.server.plan.ConfigSource} ({@link dev.gantry.server.plan.GitMirrors}: bare mirrors under
 * {@code $GANTRY_HOME/repos}, fetched with the git command line and read with JGit), compiles it with
 * {@code gantry-config}, and stores the plan in one transaction that starts with a compare-and-set on the pipeline
 * and ends by asking the orchestrator to advance each new workflow ({@link dev.gantry.server.run.Orchestration}).
 * Jobs are stored {@code blocked}; moving them on is the orchestrator's.
 *
 * <p>What belongs here: fetching configs, compiling them for a pipeline, and storing plans or plan errors. Reading
 * workflows and jobs back is {@code dev.gantry.server.workflow}'s and {@code dev.gantry.server.job}'s.
 */
package dev.gantry.server.plan;
