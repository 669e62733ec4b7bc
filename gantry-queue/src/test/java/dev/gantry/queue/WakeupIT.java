package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An enqueue wakes an idle worker in another process at once, through the database's notifications. */
class WakeupIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @Test
    void an_idle_worker_starts_a_new_message_without_waiting_for_its_poll() throws Exception {
        // Two Queues instances stand for two processes: only a database notification can carry the wake-up.
        try (Queues producer = Queues.start(pg.dataSource(), QueueSettings.defaults());
             Queues consumer = Queues.start(pg.dataSource(), QueueSettings.defaults())) {
            List<Long> latenciesMs = Collections.synchronizedList(new ArrayList<>());
            Worker.Options slowPoll = Worker.Options.named("w", 2).withIdlePoll(Duration.ofSeconds(20)).withMaxBackoff(Duration.ofSeconds(1));
            try (Worker w = Worker.start(consumer, "wake", m -> latenciesMs.add(
                    System.currentTimeMillis() - Long.parseLong(m.payload())), slowPoll)) {
                Thread.sleep(1_000); // the worker has found the queue empty and is waiting
                for (int i = 0; i < 5; i++) {
                    producer.enqueue(NewMessage.to("wake").payload(Long.toString(System.currentTimeMillis())));
                    int expected = i + 1;
                    await().atMost(Duration.ofSeconds(5)).until(() -> latenciesMs.size() == expected);
                    Thread.sleep(300);
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> w.inFlight() == 0);
            }
            assertThat(latenciesMs).hasSize(5).allSatisfy(ms -> assertThat(ms).isLessThan(2_000));
        }
    }
}
