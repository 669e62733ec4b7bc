package dev.gantry.server.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.pipeline.Delivery;
import dev.gantry.server.pipeline.PipelineTrigger;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.project.ProjectDao;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code POST /webhooks/github}, {@code /webhooks/gitlab} and {@code /webhooks/gitea}: a forge's delivery, checked
 * in this order: a JSON body (400), the event and delivery id headers (400), a project whose {@code vcs_url} is the
 * payload's repository (404), a signature that proves the webhook secret of one or more of those projects (401),
 * an event that builds (202 {@code {"message": "ignored: …"}} otherwise). Then one pipeline per proven project,
 * committed with the delivery id: 201 {@code {"pipelines": [{"id", "number", "state", "created_at",
 * "project_slug"}]}}, or 200 with the same pipelines for a redelivery. Thread-safe.
 */
public final class WebhookRoutes {
    private final Jdbi jdbi;
    private final PipelineTriggers triggers;
    private final InstantSource clock;

    public WebhookRoutes(Jdbi jdbi, PipelineTriggers triggers, InstantSource clock) {
        this.jdbi = jdbi;
        this.triggers = triggers;
        this.clock = clock;
    }

    /** The route {@code POST /webhooks/{provider}}. */
    public void receive(Context ctx) {
        String provider = ctx.pathParam("provider");
        Forge forge = Forge.of(provider).orElseThrow(() -> ApiException.notFound("no webhook route for '"
                + provider + "'; Gantry takes webhooks at /webhooks/github, /webhooks/gitlab and /webhooks/gitea"));
        receive(ctx, forge);
    }

    private void receive(Context ctx, Forge forge) {
        String contentType = ctx.contentType();
        if (contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/x-www-form")) {
            throw ApiException.unsupportedMediaType("this webhook sends form data; set its content type to "
                    + "application/json on the forge");
        }
        byte[] body = ctx.bodyAsBytes();
        JsonNode payload = parse(body);
        String event = ctx.header(forge.eventHeader());
        if (event == null || event.isBlank()) {
            throw ApiException.invalid(forge.eventHeader(), "the " + forge.eventHeader() + " header is missing");
        }
        Delivery delivery = new Delivery(forge.provider(), forge.deliveryId(ctx::header).orElseThrow(() ->
                ApiException.invalid(forge.deliveryHeaders().getFirst(), "the delivery id header ("
                        + String.join(" or ", forge.deliveryHeaders()) + ") is missing")));

        Set<String> keys = new LinkedHashSet<>();
        for (String url : forge.repositoryUrls(payload)) {
            RepoUrls.key(url).ifPresent(keys::add);
        }
        if (keys.isEmpty()) {
            ignored(ctx, "the payload names no repository");
            return;
        }
        List<ProjectDao.WebhookTarget> candidates = candidates(keys);
        if (candidates.isEmpty()) {
            throw ApiException.notFound("no project builds the repository " + forge.repositoryUrls(payload)
                    .getFirst() + "; create one with that repo_url");
        }
        List<ProjectDao.WebhookTarget> proven = candidates.stream()
                .filter(target -> target.webhookSecret() != null
                        && forge.verified(target.webhookSecret(), body, ctx::header))
                .toList();
        if (proven.isEmpty()) {
            throw ApiException.unauthorized(candidates.stream().allMatch(target -> target.webhookSecret() == null)
                    ? "no project of this repository has a webhook secret; set one with PATCH "
                    + "/api/v2/project/{slug}/settings {\"webhook\": {\"secret\": \"…\"}}"
                    : "the delivery's signature does not prove the webhook secret of any project of this repository");
        }

        ForgeEvent read = forge.read(event.strip(), payload);
        if (read instanceof ForgeEvent.Ignored ignored) {
            ignored(ctx, ignored.reason());
            return;
        }
        ForgeEvent.Build build = (ForgeEvent.Build) read;
        PipelineTrigger trigger = new PipelineTrigger(PipelineTrigger.Type.WEBHOOK, build.actor(),
                build.actorAvatarUrl(), clock.instant().truncatedTo(ChronoUnit.MICROS), build.vcs());
        List<TriggeredPipeline> pipelines = new ArrayList<>();
        boolean created = false;
        for (ProjectDao.WebhookTarget target : proven) {
            PipelineTriggers.Triggered triggered = triggers.triggerFromWebhook(target.project(), build.ref(),
                    build.revision(), trigger, delivery);
            created |= triggered.created();
            pipelines.add(TriggeredPipeline.of(triggered));
        }
        Json.respond(ctx, created ? 201 : 200, new Answer(pipelines));
    }

    /** The projects whose repository is one of {@code keys}. */
    private List<ProjectDao.WebhookTarget> candidates(Set<String> keys) {
        Set<String> names = new LinkedHashSet<>();
        keys.forEach(key -> names.add(RepoUrls.name(key)));
        List<ProjectDao.WebhookTarget> found = new ArrayList<>();
        jdbi.useExtension(ProjectDao.class, projects -> {
            for (String name : names) {
                for (ProjectDao.WebhookTarget target : projects.withRepositoryNamed(name)) {
                    boolean matches = RepoUrls.key(target.project().vcsUrl()).filter(keys::contains).isPresent();
                    if (matches && found.stream().noneMatch(f -> f.project().id().equals(target.project().id()))) {
                        found.add(target);
                    }
                }
            }
        });
        return found;
    }

    private static JsonNode parse(byte[] body) {
        if (body.length == 0) {
            throw ApiException.badRequest("the request body is empty; a webhook delivery is a JSON object");
        }
        try {
            JsonNode payload = Json.MAPPER.readTree(body);
            if (payload == null || !payload.isObject()) {
                throw ApiException.badRequest("the request body must be a JSON object");
            }
            return payload;
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("the request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void ignored(Context ctx, String reason) {
        Json.respond(ctx, 202, new Message("ignored: " + reason));
    }

    record Message(String message) {
    }

    record Answer(List<TriggeredPipeline> pipelines) {
    }

    /** A pipeline a delivery made, as a trigger's answer shows it, with its project. */
    record TriggeredPipeline(String id, long number, String state, String createdAt, String projectSlug) {
        static TriggeredPipeline of(PipelineTriggers.Triggered triggered) {
            var pipeline = triggered.pipeline();
            return new TriggeredPipeline(pipeline.id().toString(), pipeline.number(), pipeline.state().label(),
                    Json.time(pipeline.createdAt()), pipeline.project().toString());
        }
    }
}
