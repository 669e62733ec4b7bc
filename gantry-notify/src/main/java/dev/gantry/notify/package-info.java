/**
 * Outbound deliveries that are not specific to the server: telling people and systems what happened (DESIGN.md,
 * "events → notifier"). A {@link dev.gantry.notify.Channel} is one kind of destination (webhooks, Slack, e-mail
 * and forge commit statuses): it renders an {@link dev.gantry.notify.Event} for one destination and sends it
 * once. Around every send, the {@link dev.gantry.notify.DestinationGuard} of the destination's kind and host gives it
 * a share of the worker pool (bulkhead), a retry budget and a circuit breaker, so one failing or hanging endpoint
 * cannot slow the others; {@link dev.gantry.notify.RetrySchedule} says when a failed delivery is tried again and when
 * it is given up. Calls go out only through {@link dev.gantry.notify.http.OutboundHttp}, which keeps to the
 * {@link dev.gantry.notify.http.AddressRule}.
 *
 * <p>The durable part (which deliveries exist, their attempts, the queue that runs them) is the server's
 * ({@code dev.gantry.server.notify}); this module does no database work. Policies are pure and read time from an
 * injected clock; channels do I/O only in {@code send}.
 */
package dev.gantry.notify;
