package dev.gantry.server.notify;

import dev.gantry.queue.NewMessage;
import dev.gantry.queue.Queues;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Where a delivery's turns are queued, in the main database's transaction that makes them due (the state change the
 * {@link EventOutbox} reports, a retry, a redeliver), so a turn commits or rolls back with it: straight onto the main
 * database's queue ({@link #onMain}), or, with queue shards, into the relay table that {@link DeliveryRelay} moves to
 * the shard of the delivery's project ({@link #relayed}).
 */
public sealed interface DeliveryQueue {
    /** Queues {@code turns} in {@code h}'s transaction. */
    void enqueueAll(Handle h, List<Turn> turns);

    /** Turns go on {@link EventOutbox#QUEUE} of the main database. */
    static DeliveryQueue onMain(Queues queues) {
        return new OnMain(queues);
    }

    /** Turns go to the relay table, each marked with the shard of its project, and wake {@code relay} on commit. */
    static DeliveryQueue relayed(DeliveryRelay relay) {
        return new Relayed(relay);
    }

    /** A delivery's turn {@code number}, due at {@code runAt} (null: now), in its organization's queue group. */
    record Turn(UUID deliveryId, UUID projectId, int number, Instant runAt, String organization) {
        /** The turn's message; its unique key makes a second enqueue of the turn return the first. */
        NewMessage message() {
            return NewMessage.to(EventOutbox.QUEUE).payload(deliveryId + ":" + number)
                    .uniqueKey("delivery/" + deliveryId + "/" + number).runAt(runAt).group(organization)
                    .maxAttempts(EventOutbox.MESSAGE_ATTEMPTS);
        }
    }

    record OnMain(Queues queues) implements DeliveryQueue {
        @Override
        public void enqueueAll(Handle h, List<Turn> turns) {
            queues.enqueueAll(h, turns.stream().map(Turn::message).toList());
        }
    }

    record Relayed(DeliveryRelay relay) implements DeliveryQueue {
        @Override
        public void enqueueAll(Handle h, List<Turn> turns) {
            NotifyDao dao = h.attach(NotifyDao.class);
            for (Turn t : turns) {
                dao.insertRelay(t.deliveryId(), t.number(), relay.shardOf(t.projectId()),
                        t.runAt() == null ? null : t.runAt().atOffset(ZoneOffset.UTC), t.organization());
            }
            h.afterCommit(relay::wake);
        }
    }
}
