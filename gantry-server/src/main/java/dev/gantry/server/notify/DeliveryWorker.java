package dev.gantry.server.notify;

import dev.gantry.notify.Attempt;
import dev.gantry.notify.DestinationGuard;
import dev.gantry.notify.Event;
import dev.gantry.notify.RetrySchedule;
import dev.gantry.notify.Channel;
import dev.gantry.queue.Message;
import dev.gantry.queue.Worker;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one turn of a delivery per queue message ({@link EventOutbox#QUEUE}), whatever its channel (webhook, Slack,
 * e-mail, commit status): asks the destination's {@link DestinationGuard} whether it may send; if not, moves the
 * delivery to a later turn without spending an attempt; if so, sends once through the destination's
 * {@link Channel}, writes the attempt to the delivery log, and marks the
 * delivery delivered, or moves it to its next turn as {@link RetrySchedule} says, or dead once the retry window is
 * over. Each outcome commits with the next turn's message, and a message whose turn has passed does nothing, so a
 * message run twice (a crash, a lost lease) sends at most one more attempt and records each once. No transaction is
 * open during the send. Thread-safe: the queue's worker calls it from its pool.
 */
final class DeliveryWorker implements Worker.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryWorker.class);

    private final Jdbi jdbi;
    private final DeliveryQueue deliveries;
    private final Targets targets;
    private final DestinationGuard guard;
    private final RetrySchedule retries;
    private final InstantSource clock;
    private final RandomGenerator random;

    DeliveryWorker(Jdbi jdbi, DeliveryQueue deliveries, Targets targets, DestinationGuard guard, RetrySchedule retries,
                   InstantSource clock, RandomGenerator random) {
        this.jdbi = jdbi;
        this.deliveries = deliveries;
        this.targets = targets;
        this.guard = guard;
        this.retries = retries;
        this.clock = clock;
        this.random = random;
    }

    /** A destination ready for a send, with its channel and the organization whose queue group it runs in. */
    record Target<D extends Channel.Destination>(Channel<D> channel, D destination, String organization) {
        Attempt send(Event event, UUID deliveryId) {
            return channel.send(destination, event, deliveryId);
        }
    }

    /** Finds a delivery's destination by channel and id, in the caller's transaction; empty once deleted. */
    interface Targets {
        Optional<Target<?>> find(Handle h, String channel, UUID destinationId);
    }

    private record Due(NotifyDao.DueDelivery delivery, Target<?> target) {
        String organization() {
            return target.organization();
        }
    }

    @Override
    public void handle(Message message) {
        String[] parts = message.payload().split(":", 2);
        UUID deliveryId = UUID.fromString(parts[0]);
        int turn = Integer.parseInt(parts[1]);
        Optional<Due> found = jdbi.inTransaction(h -> {
            NotifyDao dao = h.attach(NotifyDao.class);
            return dao.due(deliveryId, turn).filter(d -> !overtakenByItsEnd(dao, d)).flatMap(d ->
                    targets.find(h, d.channel(), d.destinationId()).map(t -> new Due(d, t)));
        });
        if (found.isEmpty()) {
            return; // delivered, dead, superseded, started over by a redeliver, or its destination deleted
        }
        Due due = found.get();
        NotifyDao.DueDelivery d = due.delivery();
        Instant windowStart = d.windowStartedAt().toInstant();
        Channel.Destination destination = due.target().destination();
        switch (guard.enter(due.target().channel().kind(), destination.host(), destination.endpoint(),
                d.attempts() > 0)) {
            case DestinationGuard.Wait wait -> {
                Optional<Instant> later = retries.within(clock.instant().plus(wait.delay()), windowStart);
                if (later.isPresent()) {
                    nextTurn(due, false, later.get(), wait.reason());
                } else {
                    giveUp(due, false, "gave up after " + d.attempts() + " attempts in "
                            + retries.window().toHours() + " h; last waiting because the " + wait.reason());
                }
            }
            case DestinationGuard.Go go -> {
                Attempt attempt;
                try (DestinationGuard.Permit permit = go.permit()) {
                    Event event = new Event(d.eventId(), Event.Type.ofWord(d.type()),
                            dev.gantry.server.http.Json.time(d.happenedAt().toInstant()),
                            Event.snapshotOf(d.snapshot()));
                    attempt = due.target().send(event, d.id());
                    if (attempt.delivered()) {
                        permit.succeeded();
                    } else {
                        permit.failed();
                    }
                }
                record(due, attempt, windowStart);
            }
        }
    }

    /**
     * A workflow's start (a {@code pending} commit status) is superseded, not sent, once the destination has a delivery
     * of the workflow's end: sent after it, it would set the forge's status back to pending. Marked so in the
     * transaction that found it due. A start already in flight when the end is recorded can still land after it.
     */
    private boolean overtakenByItsEnd(NotifyDao dao, NotifyDao.DueDelivery d) {
        if (Event.Type.ofWord(d.type()) != Event.Type.WORKFLOW_STARTED
                || !dao.hasEndOf(d.subjectId(), d.channel(), d.destinationId())) {
            return false;
        }
        dao.superseded(d.id(), d.turn(), at(clock.instant()));
        return true;
    }

    private void record(Due due, Attempt attempt, Instant windowStart) {
        NotifyDao.DueDelivery d = due.delivery();
        int number = d.attempts() + 1;
        jdbi.useTransaction(h -> h.attach(NotifyDao.class).insertAttempt(d.id(), number,
                at(attempt.startedAt()), attempt.took().toMillis(), attempt.statusCode(), attempt.error()));
        if (attempt.delivered()) {
            jdbi.useTransaction(h -> h.attach(NotifyDao.class).delivered(d.id(), d.turn(), at(clock.instant())));
            return;
        }
        if (!attempt.retryable()) {
            giveUp(due, true, attempt.error());
            return;
        }
        Optional<Instant> next = retries.nextAttempt(number, windowStart, clock.instant(), random);
        if (next.isPresent()) {
            nextTurn(due, true, next.get(), null);
        } else {
            giveUp(due, true, "gave up after " + number + " attempts in " + retries.window().toHours()
                    + " h; the last " + attempt.error());
        }
    }

    /** Moves the delivery to its next turn at {@code at}, with that turn queued, in one transaction. */
    private void nextTurn(Due due, boolean attempted, Instant at, String waitingReason) {
        NotifyDao.DueDelivery d = due.delivery();
        jdbi.useTransaction(h -> {
            if (h.attach(NotifyDao.class).nextTurn(d.id(), d.turn(), attempted, at(at), waitingReason) == 1) {
                deliveries.enqueueAll(h, List.of(new DeliveryQueue.Turn(d.id(), d.projectId(), d.turn() + 1, at,
                        due.organization())));
            }
        });
    }

    private void giveUp(Due due, boolean attempted, String reason) {
        NotifyDao.DueDelivery d = due.delivery();
        int changed = jdbi.inTransaction(h -> h.attach(NotifyDao.class).dead(d.id(), d.turn(), attempted, reason,
                at(clock.instant())));
        if (changed == 1) {
            LOG.info("Delivery {} to {} is dead: {}", d.id(), due.target().destination(), reason);
        }
    }

    private static OffsetDateTime at(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
