/**
 * Reading workflows and their jobs through the API, in CircleCI's API v2 shapes: a pipeline's workflows, one
 * workflow, a workflow's jobs with their dependencies. Read-only: the plan builder ({@code dev.gantry.server.plan})
 * writes workflows and jobs, the orchestrator moves them on.
 *
 * <p>Every statement here is in {@link dev.gantry.server.workflow.WorkflowDao}.
 */
package dev.gantry.server.workflow;
