package dev.gantry.notify;

import java.util.UUID;

/**
 * One kind of destination (webhooks, Slack, e-mail, forge commit statuses): renders an event for one destination and
 * sends it, once. The caller (the server's delivery worker) decides whether it may send now
 * ({@link DestinationGuard}), records the {@link Attempt}, and schedules a retry ({@link RetrySchedule}); a channel
 * neither retries nor sleeps. Implementations are thread-safe; {@code send} blocks at most for its client's timeouts.
 *
 * @param <D> what the channel needs of one destination (for webhooks: URL, secret, TLS check)
 */
public interface Channel<D extends Channel.Destination> {

    /** A destination as the guard knows it: its id, and the host its calls go to. */
    interface Destination {
        UUID id();

        /** The host calls to this destination go to, for the delivery log. */
        String host();

        /**
         * What the {@link DestinationGuard} keys on, with the kind: this one endpoint, not its host. Many endpoints
         * share a host (every Slack incoming webhook is on hooks.slack.com; a test's fake servers all on 127.0.0.1),
         * and a guard per host let one failing endpoint open the circuit, and one hanging endpoint fill the bulkhead,
         * of every other endpoint on it. Names the host and id, never the URL's path, which may hold a secret.
         */
        default String endpoint() {
            return host() + " (" + id() + ")";
        }
    }

    /** The kind of destination, e.g. {@code webhook}: a queue, a guard key and a word in the delivery log. */
    String kind();

    /**
     * Sends {@code event} to {@code destination} once, as delivery {@code deliveryId} (constant across attempts, so
     * the receiver can drop duplicates). Never throws for the destination's failures: they are the attempt's outcome.
     */
    Attempt send(D destination, Event event, UUID deliveryId);
}
