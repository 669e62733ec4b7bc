package dev.gantry.server.notify;

import dev.gantry.notify.DestinationGuard;
import dev.gantry.notify.email.EmailChannel;
import dev.gantry.notify.http.AddressRule;
import dev.gantry.notify.http.OutboundHttp;
import dev.gantry.notify.webhook.WebhookChannel;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Worker;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.secret.SecretBox;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;

/**
 * The server's notifier: installs the {@link EventOutbox} on the Jdbis whose transactions change states, serves the
 * webhook API ({@link #routes()}) and the other destinations' ({@link #destinationRoutes()}), and runs the delivery worker on {@link EventOutbox#QUEUE} with a pool of its own
 * ({@link DestinationGuard.Settings#poolSize()} threads, the bulkhead's pool), apart from the orchestrator's and the
 * agents', so a slow endpoint cannot hold up job starts. Made by {@link #start}; {@link #close()} stops the worker,
 * letting sends under way finish.
 */
public final class Notifier implements AutoCloseable {
    private final OutboundWebhookRoutes routes;
    private final DestinationRoutes destinationRoutes;
    private final Worker worker;

    private Notifier(OutboundWebhookRoutes routes, DestinationRoutes destinationRoutes, Worker worker) {
        this.routes = routes;
        this.destinationRoutes = destinationRoutes;
        this.worker = worker;
    }

    /** The name of this process's delivery worker, {@code notifier@INSTANCE}. */
    public static String workerName(String instance) {
        return "notifier@" + instance;
    }

    /**
     * Starts delivering; {@code jdbis} are every Jdbi whose transactions end jobs or workflows (the main one, the
     * agents' own).
     *
     * @param rule which hosts webhooks may name: the server's {@code GANTRY_ALLOW_PRIVATE_NETWORKS}
     */
    public static Notifier start(NotifySettings settings, AddressRule rule, Jdbi jdbi, Queues queues,
                                 SecretBox secrets, ExternalUrl externalUrl, String instance, InstantSource clock,
                                 Jdbi... jdbis) {
        EventOutbox.install(jdbi, queues, externalUrl);
        for (Jdbi other : jdbis) {
            EventOutbox.install(other, queues, externalUrl);
        }
        OutboundHttp http = new OutboundHttp(settings.http(), rule);
        Webhooks webhooks = new Webhooks(jdbi, secrets, http, queues, clock);
        EmailChannel email = settings.smtp() == null ? null : new EmailChannel(settings.smtp(),
                settings.http().totalTimeout(), clock, EmailChannel::message);
        Destinations destinations = new Destinations(jdbi, secrets, http, queues, email, clock);
        WebhookChannel webhookChannel = new WebhookChannel(http, clock);
        DeliveryWorker.Targets targets = (h, channel, id) -> channel.equals(WebhookChannel.KIND)
                ? webhooks.forSending(h, id).<DeliveryWorker.Target<?>>map(w -> new DeliveryWorker.Target<>(webhookChannel, w,
                        Webhooks.organizationOf(h, id).orElseThrow()))
                : destinations.forSending(h, channel, id);
        // java.util.Random, as the worker threads share it (SplittableRandom is not thread-safe).
        Random random = new Random(new SecureRandom().nextLong());
        DestinationGuard guard = new DestinationGuard(settings.guard(), clock, random);
        DeliveryWorker handler = new DeliveryWorker(jdbi, queues, targets, guard, settings.retries(), clock, random);
        int pool = settings.guard().poolSize();
        Worker worker = Worker.start(queues, EventOutbox.QUEUE, handler,
                Worker.Options.named(workerName(instance), pool).withPrefetch(pool));
        return new Notifier(new OutboundWebhookRoutes(webhooks), new DestinationRoutes(destinations), worker);
    }

    public OutboundWebhookRoutes routes() {
        return routes;
    }

    /** The routes of the project's other destinations (Slack, e-mail, commit statuses). */
    public DestinationRoutes destinationRoutes() {
        return destinationRoutes;
    }

    @Override
    public void close() {
        worker.close();
    }
}
