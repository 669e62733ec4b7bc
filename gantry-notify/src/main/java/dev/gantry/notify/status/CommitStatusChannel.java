package dev.gantry.notify.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.notify.Attempt;
import dev.gantry.notify.Channel;
import dev.gantry.notify.Event;
import dev.gantry.notify.http.OutboundHttp;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Commit statuses per workflow on the forge: {@code pending} when a workflow starts and its final state when it
 * ends, on the pipeline's commit, named {@code ci/gantry: WORKFLOW} and linking to the UI's pipeline page.
 * <ul>
 * <li>GitHub: {@code POST {api}/repos/{owner}/{repo}/statuses/{sha}}, {@code Authorization: Bearer}, body
 * {@code {state: pending|success|failure|error, target_url, description, context}}.
 * <li>GitLab: {@code POST {api}/projects/{url-encoded path}/statuses/{sha}}, {@code PRIVATE-TOKEN}, body
 * {@code {state: pending|running|success|failed|canceled, name, target_url, description, ref}}.
 * <li>Gitea: {@code POST {api}/repos/{owner}/{repo}/statuses/{sha}}, {@code Authorization: token}, GitHub's body.
 * </ul>
 * Thread-safe.
 */
public final class CommitStatusChannel implements Channel<StatusDestination> {
    public static final String KIND = "commit-status";
    public static final String CONTEXT_PREFIX = "ci/gantry: ";
    static final int MAX_DESCRIPTION = 140; // GitHub's limit

    private final OutboundHttp http;
    private final InstantSource clock;

    public CommitStatusChannel(OutboundHttp http, InstantSource clock) {
        this.http = http;
        this.clock = clock;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public Attempt send(StatusDestination destination, Event event, UUID deliveryId) {
        Event.Vcs vcs = event.snapshot().pipeline().vcs();
        if (vcs == null || vcs.revision() == null || vcs.revision().isBlank()) {
            return Attempt.failed(clock.instant(), java.time.Duration.ZERO, "not sent: the pipeline has no commit",
                    false);
        }
        return http.attempt(request(destination, event), clock);
    }

    /** The POST that sets the status of {@code event}'s workflow on {@code destination}. */
    public static OutboundHttp.Post request(StatusDestination destination, Event event) {
        ForgeRepository repository = destination.repository();
        Event.Snapshot s = event.snapshot();
        String sha = s.pipeline().vcs().revision();
        String state = state(repository.forge(), event);
        String context = CONTEXT_PREFIX + s.workflow().name();
        String description = description(event);
        ObjectNode body = Event.JSON.createObjectNode();
        body.put("state", state);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        String path;
        switch (repository.forge()) {
            case GITLAB -> {
                path = "/projects/" + URLEncoder.encode(repository.path(), StandardCharsets.UTF_8) + "/statuses/" + sha;
                headers.put("PRIVATE-TOKEN", destination.token());
                body.put("name", context);
                if (s.pipeline().vcs().branch() != null) {
                    body.put("ref", s.pipeline().vcs().branch());
                }
            }
            case GITHUB -> {
                path = "/repos/" + repository.path() + "/statuses/" + sha;
                headers.put("Authorization", "Bearer " + destination.token());
                headers.put("Accept", "application/vnd.github+json");
                headers.put("X-GitHub-Api-Version", "2022-11-28");
                body.put("context", context);
            }
            case GITEA -> {
                path = "/repos/" + repository.path() + "/statuses/" + sha;
                headers.put("Authorization", "token " + destination.token());
                body.put("context", context);
            }
            default -> throw new IllegalStateException("no forge " + repository.forge());
        }
        body.put("description", description);
        if (s.workflow().url() != null) {
            body.put("target_url", s.workflow().url());
        }
        try {
            return new OutboundHttp.Post(URI.create(repository.api().toString().replaceAll("/+$", "") + path),
                    Event.JSON.writeValueAsBytes(body), headers, true);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a commit status did not serialise", e);
        }
    }

    /** The forge's word for the workflow's state. */
    static String state(Forge forge, Event event) {
        if (event.type() == Event.Type.WORKFLOW_STARTED) {
            return "pending";
        }
        String status = event.snapshot().workflow().status();
        boolean gitlab = forge == Forge.GITLAB;
        return switch (status) {
            case "success" -> "success";
            case "failed", "failing" -> gitlab ? "failed" : "failure";
            case "canceled" -> gitlab ? "canceled" : "error";
            default -> gitlab ? "failed" : "error";
        };
    }

    private static String description(Event event) {
        String status = event.type() == Event.Type.WORKFLOW_STARTED ? "running"
                : event.snapshot().workflow().status();
        String text = "Workflow " + event.snapshot().workflow().name() + ": " + status;
        return text.length() > MAX_DESCRIPTION ? text.substring(0, MAX_DESCRIPTION) : text;
    }
}
