/**
 * A job's details through the API ({@code GET /api/v2/project/{slug}/job/{number}}), in CircleCI's shape, with its
 * steps (rows the agent API writes) and parallel runs. Read-only.
 *
 * <p>Every statement here is in {@link dev.gantry.server.job.JobDao}.
 */
package dev.gantry.server.job;
