/**
 * Webhooks from GitHub, GitLab and Gitea: {@code POST /webhooks/{github,gitlab,gitea}} (outside {@code /api/v2}, so
 * without the admin token). {@link dev.gantry.server.webhook.WebhookRoutes} reads a delivery, finds the projects
 * whose repository it is about ({@link dev.gantry.server.webhook.RepoUrls}), keeps those whose webhook secret the
 * delivery's signature proves ({@link dev.gantry.server.webhook.Signatures}), reads what the event asks for
 * ({@link dev.gantry.server.webhook.Forge}: a push, a tag push or a pull request builds; anything else is ignored)
 * and triggers one pipeline per project through
 * {@link dev.gantry.server.pipeline.PipelineTriggers#triggerFromWebhook}, which records the delivery id in the
 * pipeline's transaction so that a redelivery makes no second pipeline.
 *
 * <p>Everything here but the routes is pure: the forges' dialects, the signatures and the URL matching are unit
 * tested without I/O.
 */
package dev.gantry.server.webhook;
