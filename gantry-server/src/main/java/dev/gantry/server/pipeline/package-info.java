/**
 * Pipelines: one run of a project's configuration for a branch or tag. {@link
 * dev.gantry.server.pipeline.PipelineTriggers} stores a triggered pipeline and enqueues its plan message
 * ({@value dev.gantry.server.pipeline.PipelineTriggers#PLAN_QUEUE}) in one transaction, numbers pipelines per project
 * without gaps, and honours {@code Idempotency-Key}; {@link dev.gantry.server.pipeline.PipelineRoutes} serves
 * {@code POST /api/v2/project/{slug}/pipeline} and {@code GET /api/v2/pipeline/{id}}.
 *
 * <p>Every statement on {@code gantry.pipeline} is in {@link dev.gantry.server.pipeline.PipelineDao}.
 */
package dev.gantry.server.pipeline;
