/**
 * Pipelines: one run of a project's configuration for a branch or tag. {@link
 * dev.gantry.server.pipeline.PipelineTriggers} stores a triggered pipeline and enqueues its plan message
 * ({@value dev.gantry.server.pipeline.PipelineTriggers#PLAN_QUEUE}) in one transaction, numbers pipelines per project
 * without gaps, honours {@code Idempotency-Key}, records what triggered each pipeline
 * ({@link dev.gantry.server.pipeline.PipelineTrigger}) and deduplicates webhook deliveries by their id;
 * {@link dev.gantry.server.pipeline.PipelineRoutes} serves
 * {@code POST /api/v2/project/{slug}/pipeline}, {@code GET /api/v2/pipeline/{id}} and {@code …/config}, and a
 * project's pipelines ({@code GET …/pipeline}, {@code …/mine}, {@code …/{number}}, read by
 * {@link dev.gantry.server.pipeline.PipelineReads}). A trigger without branch or tag builds the repository's default
 * branch: the pipeline has neither until the plan builder, having fetched the repository, gives it the branch
 * {@code HEAD} names.
 *
 * <p>Every statement on {@code gantry.pipeline} is in {@link dev.gantry.server.pipeline.PipelineDao}.
 */
package dev.gantry.server.pipeline;
