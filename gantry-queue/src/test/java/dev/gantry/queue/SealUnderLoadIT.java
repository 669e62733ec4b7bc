package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sealing an epoch while producers and workers keep the queue busy: the seal moves messages that claims and
 * completions are working on, and must neither fail them nor give up turn after turn and leave epochs piling up (as
 * an earlier, locking seal did when it took its locks in the wrong order).
 */
class SealUnderLoadIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(20);

    @Test
    void epochs_are_sealed_on_their_first_turn_while_producers_and_workers_are_busy() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock)
                .withEpochLength(Duration.ofMinutes(1)).withLease(Duration.ofHours(1)));
        LongAdder completed = new LongAdder();
        LongAdder enqueued = new LongAdder();
        List<Integer> liveAfterEachTurn = new ArrayList<>();
        Throwable failure;
        try (Load load = new Load()) {
            for (int i = 0; i < 2; i++) {
                // Producers stay at most a few hundred messages ahead: a larger backlog is deliberately left in its
                // epoch for a while (Epochs.MAX_MOVED), which is not what this test is about.
                load.repeat("producer-" + i, () -> {
                    if (enqueued.sum() - completed.sum() < Epochs.MAX_MOVED / 2) {
                        queues.enqueue(NewMessage.to("sealing"));
                        enqueued.increment();
                    } else {
                        Thread.onSpinWait();
                    }
                });
                String worker = "worker-" + i;
                load.repeat(worker, () -> {
                    for (Message m : queues.claim("sealing", worker, 5)) {
                        queues.complete(m);
                        completed.increment();
                    }
                });
            }
            for (int turn = 0; turn < 8; turn++) {
                Thread.sleep(300);
                clock.advance(Duration.ofSeconds(61));
                queues.maintain();
                liveAfterEachTurn.add(queues.liveEpochs().size());
            }
            load.close();
            failure = load.failure();
        } finally {
            queues.close();
        }
        assertThat(failure).as("a failure under load").isNull();
        assertThat(completed.sum()).as("messages completed meanwhile").isPositive();
        assertThat(liveAfterEachTurn).as("live epochs after each turn")
                .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
    }
}
