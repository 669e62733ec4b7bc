package dev.gantry.server.notify;

import dev.gantry.notify.DestinationGuard;
import dev.gantry.notify.email.EmailChannel;
import dev.gantry.notify.http.AddressRule;
import dev.gantry.notify.http.OutboundHttp;
import dev.gantry.notify.webhook.WebhookChannel;
import dev.gantry.queue.Queues;
import dev.gantry.queue.ShardWorkers;
import dev.gantry.queue.Shards;
import dev.gantry.queue.Worker;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.secret.SecretBox;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;

/**
 * The server's notifier: installs the {@link EventOutbox} on the Jdbis whose transactions change states, serves the
 * webhook API ({@link #routes()}) and the other destinations' ({@link #destinationRoutes()}), and runs the delivery
 * worker on {@link EventOutbox#QUEUE} with a pool of its own ({@link DestinationGuard.Settings#poolSize()} threads, the
 * bulkhead's pool), apart from the orchestrator's and the agents', so a slow endpoint cannot hold up job starts.
 *
 * <p>Deliveries are queued on the main database, or, when the server has queue shards ({@code GANTRY_QUEUE_SHARDS}),
 * on the shard of their project: through the {@link DeliveryRelay}, with a worker per shard, so a shard that is down
 * holds up only its own projects' deliveries (the main database's worker runs on, for turns queued before). Made by {@link #start}; {@link #close()} stops the workers, letting sends
 * under way finish, then the relay.
 */
public final class Notifier implements AutoCloseable {
    private final OutboundWebhookRoutes routes;
    private final DestinationRoutes destinationRoutes;
    /** Stops the delivery workers, then the relay if there is one. */
    private final Runnable stop;

    private Notifier(OutboundWebhookRoutes routes, DestinationRoutes destinationRoutes, Runnable stop) {
        this.routes = routes;
        this.destinationRoutes = destinationRoutes;
        this.stop = stop;
    }

    /** The name of this process's delivery worker, {@code notifier@INSTANCE}. */
    public static String workerName(String instance) {
        return "notifier@" + instance;
    }

    /**
     * Starts delivering; {@code jdbis} are every Jdbi whose transactions end jobs or workflows (the main one, the
     * agents' own).
     *
     * @param rule   which hosts webhooks may name: the server's {@code GANTRY_ALLOW_PRIVATE_NETWORKS}
     * @param shards the queue shards deliveries run on; null to run them on {@code queues}, the main database's
     * @param gate   asked before the delivery workers claim: deliveries yield to job starts under distress or load
     */
    public static Notifier start(NotifySettings settings, AddressRule rule, Jdbi jdbi, Queues queues, Shards shards,
                                 Worker.ClaimGate gate, SecretBox secrets, ExternalUrl externalUrl, String instance, InstantSource clock,
                                 Jdbi... jdbis) {
        DeliveryRelay relay = shards == null ? null : DeliveryRelay.start(jdbi, shards);
        DeliveryQueue deliveries = relay == null ? DeliveryQueue.onMain(queues) : DeliveryQueue.relayed(relay);
        EventOutbox.install(jdbi, deliveries, externalUrl);
        for (Jdbi other : jdbis) {
            EventOutbox.install(other, deliveries, externalUrl);
        }
        OutboundHttp http = new OutboundHttp(settings.http(), rule);
        Webhooks webhooks = new Webhooks(jdbi, secrets, http, deliveries, clock);
        EmailChannel email = settings.smtp() == null ? null : new EmailChannel(settings.smtp(),
                settings.http().totalTimeout(), clock, EmailChannel::message);
        Destinations destinations = new Destinations(jdbi, secrets, http, deliveries, email, clock);
        WebhookChannel webhookChannel = new WebhookChannel(http, clock);
        DeliveryWorker.Targets targets = (h, channel, id) -> channel.equals(WebhookChannel.KIND)
                ? webhooks.forSending(h, id).<DeliveryWorker.Target<?>>map(w -> new DeliveryWorker.Target<>(webhookChannel, w,
                        Webhooks.organizationOf(h, id).orElseThrow()))
                : destinations.forSending(h, channel, id);
        // java.util.Random, as the worker threads share it (SplittableRandom is not thread-safe).
        Random random = new Random(new SecureRandom().nextLong());
        DestinationGuard guard = new DestinationGuard(settings.guard(), clock, random);
        DeliveryWorker handler = new DeliveryWorker(jdbi, deliveries, targets, guard, settings.retries(), clock,
                random);
        int pool = settings.guard().poolSize();
        Worker.Options options = Worker.Options.named(workerName(instance), pool).withPrefetch(pool).withGate(gate);
        // The main database's worker runs with shards too: turns queued there before they were set still go out.
        Worker onMain = Worker.start(queues, EventOutbox.QUEUE, handler, options);
        Runnable stop = onMain::close;
        if (relay != null) {
            // Each shard's worker has a pool of that size; the guard's bulkhead per destination bounds them together.
            ShardWorkers onShards;
            try {
                onShards = shards.startWorkers(EventOutbox.QUEUE, handler, options);
            } catch (RuntimeException failure) {
                onMain.close();
                relay.close();
                throw failure;
            }
            stop = () -> {
                onShards.close();
                onMain.close();
                relay.close();
            };
        }
        return new Notifier(new OutboundWebhookRoutes(webhooks), new DestinationRoutes(destinations), stop);
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
        stop.run();
    }
}
