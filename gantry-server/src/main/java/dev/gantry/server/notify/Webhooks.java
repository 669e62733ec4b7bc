package dev.gantry.server.notify;

import dev.gantry.notify.Event;
import dev.gantry.notify.http.OutboundHttp;
import dev.gantry.notify.webhook.Webhook;
import dev.gantry.notify.webhook.WebhookChannel;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.secret.SecretBox;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Project webhooks: made, changed and removed by the API, their delivery log read and a delivery started over. A
 * webhook's URL is checked against the address rule when it is set (and again before every send); its signing secret
 * is sealed by the {@link SecretBox} with the webhook's id as associated data and opened only to sign. Thread-safe.
 */
public final class Webhooks {
    /** CircleCI's limit per project. */
    public static final int MAX_PER_PROJECT = 5;
    static final int MAX_SECRET_LENGTH = 255;

    /** What a webhook is, as the API sets it; every field checked. */
    record Spec(String name, URI url, boolean verifyTls, Set<Event.Type> events, String signingSecret) {
    }

    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final OutboundHttp http;
    private final DeliveryQueue deliveries;
    private final InstantSource clock;

    public Webhooks(Jdbi jdbi, SecretBox secrets, OutboundHttp http, DeliveryQueue deliveries, InstantSource clock) {
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.http = http;
        this.deliveries = deliveries;
        this.clock = clock;
    }

    /**
     * Makes a webhook of project {@code projectId}.
     *
     * @throws ApiException 404 without such a project, 409 when it has {@link #MAX_PER_PROJECT} already
     */
    NotifyDao.WebhookRow create(UUID projectId, Spec spec) {
        checkUrl(spec.url());
        return jdbi.inTransaction(h -> {
            lockProject(h, projectId);
            NotifyDao dao = h.attach(NotifyDao.class);
            if (dao.countOf(projectId) >= MAX_PER_PROJECT) {
                throw ApiException.conflict("project " + projectId + " has " + MAX_PER_PROJECT
                        + " webhooks, the most a project may have; delete one first");
            }
            UUID id = UUID.randomUUID();
            RepositoryUrls.Sealed secret = secrets.seal(h, context(id), spec.signingSecret());
            dao.insertWebhook(id, projectId, spec.name(), spec.url().toString(), spec.verifyTls(),
                    words(spec.events()), secret.bytes(), secret.dataKeyId(), now());
            return dao.webhook(id).orElseThrow();
        });
    }

    /**
     * Locks the project's row for the rest of {@code h}'s transaction, so that concurrent creates of a project's
     * webhooks or destinations take turns at counting them.
     *
     * @throws ApiException 404 without such a project
     */
    static void lockProject(Handle h, UUID projectId) {
        h.createQuery("SELECT id FROM gantry.project WHERE id = :id FOR UPDATE").bind("id", projectId)
                .mapTo(UUID.class).findOne()
                .orElseThrow(() -> ApiException.notFound("no project with id " + projectId));
    }

    /** Changes what {@code change} gives: a partial spec over the webhook's current one. */
    NotifyDao.WebhookRow update(UUID id, java.util.function.UnaryOperator<Spec> change) {
        return jdbi.inTransaction(h -> {
            NotifyDao dao = h.attach(NotifyDao.class);
            NotifyDao.WebhookRow row = dao.lockWebhook(id).orElseThrow(() -> unknown(id));
            Spec spec = change.apply(spec(h, row));
            checkUrl(spec.url());
            RepositoryUrls.Sealed secret = secrets.seal(h, context(id), spec.signingSecret());
            dao.updateWebhook(id, spec.name(), spec.url().toString(), spec.verifyTls(), words(spec.events()),
                    secret.bytes(), secret.dataKeyId(), now());
            return dao.webhook(id).orElseThrow();
        });
    }

    Optional<NotifyDao.WebhookRow> find(UUID id) {
        return jdbi.withHandle(h -> h.attach(NotifyDao.class).webhook(id));
    }

    List<NotifyDao.WebhookRow> ofProject(UUID projectId) {
        return jdbi.withHandle(h -> h.attach(NotifyDao.class).webhooksOf(projectId));
    }

    /** @throws ApiException 404 when there is no such webhook */
    void delete(UUID id) {
        if (jdbi.inTransaction(h -> h.attach(NotifyDao.class).deleteWebhook(id)) == 0) {
            throw unknown(id);
        }
    }

    /** The webhook's latest deliveries, newest first, each with its attempts. */
    List<DeliveryLog> deliveries(UUID webhookId) {
        return jdbi.withHandle(h -> {
            h.attach(NotifyDao.class).webhook(webhookId).orElseThrow(() -> unknown(webhookId));
            return DeliveryLog.latest(h, WebhookChannel.KIND, webhookId);
        });
    }

    /**
     * Sends delivery {@code deliveryId} of the webhook again ({@link DeliveryLog#redeliver}).
     *
     * @throws ApiException 404 when the webhook has no such delivery
     */
    void redeliver(UUID webhookId, UUID deliveryId) {
        jdbi.useTransaction(h -> {
            NotifyDao.WebhookRow webhook = h.attach(NotifyDao.class).webhook(webhookId)
                    .orElseThrow(() -> unknown(webhookId));
            DeliveryLog.redeliver(h, deliveries, WebhookChannel.KIND, webhookId, deliveryId, webhook.projectId(),
                    organizationOf(h, webhookId).orElseThrow(() -> unknown(webhookId)), now());
        });
    }

    /** The webhook with its secret opened, for a send; empty when it was deleted. */
    Optional<Webhook> forSending(Handle h, UUID id) {
        return h.attach(NotifyDao.class).webhook(id).map(row -> new Webhook(row.id(), row.name(),
                URI.create(row.url()), row.verifyTls(), openSecret(h, row)));
    }

    /** The organization of the project {@code projectId}, if there is one. */
    Optional<String> organizationOfProject(UUID projectId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT organization FROM gantry.project WHERE id = :id")
                .bind("id", projectId).mapTo(String.class).findOne());
    }

    /** The organization of the webhook {@code id}'s project, if there is such a webhook. */
    Optional<String> organizationOfWebhook(UUID id) {
        return jdbi.withHandle(h -> organizationOf(h, id));
    }

    /** {@link #organizationOfWebhook} in {@code h}'s transaction. */
    static Optional<String> organizationOf(Handle h, UUID webhookId) {
        return h.createQuery("""
                SELECT p.organization FROM gantry.webhook w JOIN gantry.project p ON p.id = w.project_id
                WHERE w.id = :id""").bind("id", webhookId).mapTo(String.class).findOne();
    }

    private Spec spec(Handle h, NotifyDao.WebhookRow row) {
        Set<Event.Type> events = new LinkedHashSet<>();
        Arrays.stream(row.events()).map(Event.Type::ofWord).forEach(events::add);
        return new Spec(row.name(), URI.create(row.url()), row.verifyTls(), events, openSecret(h, row));
    }

    private String openSecret(Handle h, NotifyDao.WebhookRow row) {
        return secrets.open(h, context(row.id()), row.signingSecretKey(), row.signingSecret());
    }

    /** The URL must be one the outbound client would call: http(s), a host, and an allowed address. */
    private void checkUrl(URI url) {
        http.refusal(url).ifPresent(reason -> {
            throw ApiException.invalid("url", "the URL " + reason);
        });
    }

    /** Parses a webhook URL as the API takes it. */
    static URI url(String text) {
        try {
            URI url = new URI(text);
            if (!url.isAbsolute() || url.getHost() == null || url.getRawUserInfo() != null) {
                throw ApiException.invalid("url", "\"url\" must be an absolute http:// or https:// URL with a host "
                        + "and no user, got " + ApiException.quote(text));
            }
            return url;
        } catch (URISyntaxException e) {
            throw ApiException.invalid("url", "\"url\" is not a URL: " + ApiException.quote(text));
        }
    }

    private static String context(UUID webhookId) {
        return "webhook:" + webhookId;
    }

    private static String[] words(Set<Event.Type> events) {
        return events.stream().map(Event.Type::word).toArray(String[]::new);
    }

    private OffsetDateTime now() {
        return clock.instant().atOffset(ZoneOffset.UTC);
    }

    static ApiException unknown(UUID id) {
        return ApiException.notFound("no webhook with id " + id);
    }
}
