package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shards on two embedded PostgreSQL servers of their own: one going down stops only its own keys' work, and
 * when it returns, its messages are all processed, none lost and none completed twice.
 */
class ShardsIT {
    @TempDir
    static Path home;

    private static RestartablePostgres a;
    private static RestartablePostgres b;
    private static Shards shards;

    @BeforeAll
    static void startShards() {
        a = RestartablePostgres.start(home.resolve("a"), "shard-a", 12);
        b = RestartablePostgres.start(home.resolve("b"), "shard-b", 12);
        shards = Shards.start(List.of(a.dataSource(), b.dataSource()), QueueSettings.defaults()
                .withLease(Duration.ofSeconds(3)).withRetry(Duration.ofMillis(50), Duration.ofMillis(200)));
        CompletionAudit.install(a.dataSource());
        CompletionAudit.install(b.dataSource());
    }

    @AfterAll
    static void stopShards() {
        if (shards != null) {
            shards.close();
        }
        if (b != null) {
            b.close();
        }
        if (a != null) {
            a.close();
        }
    }

    /** What one shard's handler saw: per message, how often it was handled, and whether two ran at once. */
    private record Seen(Map<Long, Integer> handled, Set<Long> active, AtomicInteger overlaps) {
        Seen() {
            this(new ConcurrentHashMap<>(), ConcurrentHashMap.newKeySet(), new AtomicInteger());
        }

        Worker.Handler handler() {
            return m -> {
                if (!active.add(m.id())) {
                    overlaps.incrementAndGet();
                }
                try {
                    Thread.sleep(15);
                    handled.merge(m.id(), 1, Integer::sum);
                } finally {
                    active.remove(m.id());
                }
            };
        }
    }

    @Test
    void keys_are_routed_to_the_shard_that_owns_them() {
        String key = keys(1, 1).get(0);
        Shards.Routed routed = shards.enqueue(key, NewMessage.to("routing"));
        assertThat(routed.shard()).isEqualTo(1).isEqualTo(shards.shardOf(key));
        assertThat(shards.forKey(key)).isSameAs(shards.shard(1));
        assertThat(shards.shard(1).claim("routing", "w", 10)).extracting(Message::id)
                .containsExactly(routed.enqueued().id());
        assertThat(shards.shard(0).claim("routing", "w", 10)).isEmpty();
    }

    @Test
    void a_stopped_shard_leaves_the_other_working_and_its_messages_are_all_processed_when_it_returns()
            throws Exception {
        List<String> keysA = keys(0, 10);
        List<String> keysB = keys(1, 10);
        List<Long> idsA = new CopyOnWriteArrayList<>(enqueue(keysA, 300));
        List<Long> idsB = enqueue(keysB, 300);
        Seen seenA = new Seen();
        Seen seenB = new Seen();
        Worker.Options options = Worker.Options.named("w", 3).withMaxBackoff(Duration.ofSeconds(2));
        AutoCloseable maintenance = shards.startMaintenance(Duration.ofMillis(500));
        try (ShardWorkers workers = shards.startWorkersPerShard("builds",
                shard -> (shard == 0 ? seenA : seenB).handler(), options)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> seenB.handled().size() >= 50);
            b.stop();
            int doneOnB = seenB.handled().size();

            long start = System.nanoTime();
            QueueUnavailableException refused = catchThrowableOfType(QueueUnavailableException.class,
                    () -> shards.enqueue(keysB.get(0), NewMessage.to("builds")));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(refused).as("an enqueue for the stopped shard").isNotNull();
            assertThat(refused.getMessage()).startsWith("shard 1: ");
            assertThat(refused.retryAfter()).isPositive();
            assertThat(millis).as("time to refuse, ms").isLessThan(2_000);

            // Shard A goes on: what it had, and new work enqueued while B is down, all completes.
            idsA.addAll(enqueue(keysA, 100));
            await().atMost(Duration.ofSeconds(30)).until(() -> allDone(shards.shard(0), idsA));
            assertThat(seenB.handled().size()).as("B handled nothing while down").isEqualTo(doneOnB);
            System.out.printf("shards: A finished %d messages while B was down (B had done %d of %d); enqueue to "
                    + "B refused in %d ms%n", idsA.size(), doneOnB, idsB.size(), millis);

            b.start();
            long back = System.nanoTime();
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> allDone(shards.shard(1), idsB));
            System.out.printf("shards: all of B done %d ms after it returned; %d redelivered%n",
                    (System.nanoTime() - back) / 1_000_000,
                    seenB.handled().values().stream().filter(n -> n > 1).count());
            await().atMost(Duration.ofSeconds(10)).until(() -> workers.inFlight() == 0);
        } finally {
            maintenance.close();
        }
        assertShard(a, seenA, idsA);
        assertShard(b, seenB, idsB);
    }

    private static void assertShard(RestartablePostgres server, Seen seen, List<Long> ids) {
        assertThat(seen.overlaps()).as("deliveries of one message at once").hasValue(0);
        assertThat(seen.handled().keySet()).containsExactlyInAnyOrderElementsOf(ids);
        Map<Long, Integer> completions = CompletionAudit.completions(server.dataSource());
        for (long id : ids) {
            assertThat(completions.get(id)).as("committed completions of message %d", id).isEqualTo(1);
        }
        assertThat(completions).hasSize(ids.size());
    }

    private static boolean allDone(Queues queues, List<Long> ids) {
        return ids.stream().allMatch(id -> queues.state(id).orElseThrow() == MessageState.DONE);
    }

    /** {@code n} project keys that route to {@code shard}. */
    private static List<String> keys(int shard, int n) {
        return IntStream.iterate(0, i -> i + 1).mapToObj(i -> "project-" + i)
                .filter(k -> shards.shardOf(k) == shard).limit(n).toList();
    }

    private static List<Long> enqueue(List<String> keys, int n) {
        return IntStream.range(0, n).mapToObj(i -> {
            String key = keys.get(i % keys.size());
            Shards.Routed routed = shards.enqueue(key, NewMessage.to("builds").payload(key));
            assertThat(routed.shard()).isEqualTo(shards.shardOf(key));
            return routed.enqueued().id();
        }).toList();
    }
}
