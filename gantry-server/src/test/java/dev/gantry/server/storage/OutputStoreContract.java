package dev.gantry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What every {@link OutputStore} promises, run against each implementation by a subclass: appends from an offset
 * that skip what is stored and refuse a gap, notes at the end, reads from an offset up to the length at open, a
 * stream longer than one database row, the lengths of several streams at once, and notes from several threads at
 * once each kept whole.
 */
abstract class OutputStoreContract {
    final UUID job = UUID.randomUUID();

    abstract OutputStore store();

    @Test
    void appends_read_back_from_any_offset() throws IOException {
        assertThat(store().length(job, 0)).isZero();
        assertThat(store().append(job, 0, 0, text("hello "))).isEqualTo(6);
        assertThat(store().append(job, 0, 6, text("world\n"))).isEqualTo(12);

        assertThat(read(0, 0)).isEqualTo("hello world\n");
        assertThat(read(0, 6)).isEqualTo("world\n");
        assertThat(read(0, 12)).isEmpty();
        assertThat(read(0, 99)).isEmpty();
        assertThat(read(1, 0)).as("another node's stream").isEmpty();
        assertThat(store().length(job, 0)).isEqualTo(12);
    }

    @Test
    void lengths_of_several_streams_come_at_once_and_an_unwritten_one_is_zero() throws IOException {
        UUID other = UUID.randomUUID();
        store().append(job, 0, 0, text("hello "));
        store().append(job, 0, 6, text("world\n"));
        store().append(job, 1, 0, text("node 1"));

        assertThat(store().lengths(List.of(new OutputStore.Node(job, 0), new OutputStore.Node(job, 1),
                new OutputStore.Node(other, 0)))).isEqualTo(java.util.Map.of(new OutputStore.Node(job, 0), 12L,
                new OutputStore.Node(job, 1), 6L, new OutputStore.Node(other, 0), 0L));
    }

    @Test
    void a_resend_skips_what_is_stored_and_a_gap_is_refused_with_the_length() throws IOException {
        store().append(job, 0, 0, text("abcdef"));

        assertThat(store().append(job, 0, 3, text("defghi"))).isEqualTo(9);
        assertThat(store().append(job, 0, 0, text("abc"))).as("all of it a resend").isEqualTo(9);
        assertThatThrownBy(() -> store().append(job, 0, 10, text("k")))
                .isInstanceOfSatisfying(OutputGapException.class, gap -> assertThat(gap.length()).isEqualTo(9));

        assertThat(read(0, 0)).isEqualTo("abcdefghi");
    }

    @Test
    void a_note_goes_at_the_end_and_an_append_after_it_skips_as_much() throws IOException {
        store().append(job, 0, 0, text("step 1\n"));
        store().appendNote(job, 0, "[gantry] note\n");

        assertThat(store().append(job, 0, 7, text("step 2\n"))).as("the note took its place: all of it counts as had")
                .isEqualTo(21);

        assertThat(read(0, 0)).isEqualTo("step 1\n[gantry] note\n");
    }

    @Test
    void a_read_ends_where_the_stream_ended_when_it_opened() throws IOException {
        store().append(job, 0, 0, text("before\n"));

        try (InputStream reading = store().read(job, 0, 0)) {
            store().append(job, 0, 7, text("after\n"));
            assertThat(new String(reading.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("before\n");
        }
        assertThat(read(0, 7)).isEqualTo("after\n");
    }

    @Test
    void a_long_stream_reads_back_whole_and_from_inside_it() throws IOException {
        byte[] bytes = new byte[(int) (2.5 * DatabaseOutputStore.PIECE * 3)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ('a' + i % 26);
        }
        int first = DatabaseOutputStore.PIECE * 3 + 17;

        assertThat(store().append(job, 2, 0, new ByteArrayInputStream(bytes, 0, first))).isEqualTo(first);
        assertThat(store().append(job, 2, 100, new ByteArrayInputStream(bytes, 100, bytes.length - 100)))
                .isEqualTo(bytes.length);

        try (InputStream in = store().read(job, 2, 0)) {
            assertThat(Arrays.equals(in.readAllBytes(), bytes)).isTrue();
        }
        int middle = DatabaseOutputStore.PIECE + 5;
        try (InputStream in = store().read(job, 2, middle)) {
            assertThat(Arrays.equals(in.readAllBytes(), Arrays.copyOfRange(bytes, middle, bytes.length))).isTrue();
        }
    }

    @Test
    void notes_from_several_threads_at_once_are_each_kept_whole() throws Exception {
        int threads = 4;
        int notes = 25;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int n = 0; n < notes; n++) {
                        store().appendNote(job, 0, "[thread " + thread + " note " + n + "]\n");
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }

        List<String> lines = List.of(read(0, 0).split("\n"));
        assertThat(lines).hasSize(threads * notes).allMatch(line -> line.matches("\\[thread \\d note \\d+]"));
        for (int t = 0; t < threads; t++) {
            String prefix = "[thread " + t + " ";
            assertThat(lines.stream().filter(l -> l.startsWith(prefix)).toList()).as("in each thread's order")
                    .containsExactly(java.util.stream.IntStream.range(0, notes)
                            .mapToObj(n -> prefix + "note " + n + "]").toArray(String[]::new));
        }
    }

    String read(int node, long offset) throws IOException {
        try (InputStream in = store().read(job, node, offset)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static InputStream text(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }
}
