package dev.gantry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BlobStore} promises, run against each implementation by a subclass that says how to make one:
 * blobs written, read back, sized, replaced, deleted; a name taken by exactly one of two racing writers; a blob of
 * several parts streamed in and out without holding it whole; and a write that fails half-way publishing nothing.
 */
abstract class BlobStoreContract {
    /** More than two of S3's smallest parts, and not a multiple of them (the S3 tests use parts of that size). */
    static final long LARGE = 2L * S3BlobStore.MIN_PART_SIZE + 1_234_567;

    /** The store under test, empty at the start of each test. */
    abstract BlobStore store();

    /** The names of every blob the store holds, found behind its back (the directory, the bucket). */
    abstract List<String> names() throws IOException;

    @Test
    void a_blob_reads_back_as_written_with_its_size() throws IOException {
        BlobName name = BlobName.of("artifacts", "job", "0", "reports", "index.html");

        assertThat(store().put(name, text("<p>hello</p>"))).isEqualTo(12);

        assertThat(read(name)).isEqualTo("<p>hello</p>");
        assertThat(store().size(name)).contains(12L);
        assertThat(store().open(name).orElseThrow().size()).isEqualTo(12);
        assertThat(names()).containsExactly("artifacts/job/0/reports/index.html");
    }

    @Test
    void a_missing_blob_is_empty_everywhere() throws IOException {
        BlobName name = BlobName.of("caches", "project", "missing.tar.gz");

        assertThat(store().open(name)).isEmpty();
        assertThat(store().size(name)).isEmpty();
        assertThat(store().delete(name)).isFalse();
    }

    @Test
    void put_replaces_a_blob_and_delete_removes_it_alone() throws IOException {
        BlobName first = BlobName.of("artifacts", "job", "0", "a.txt");
        BlobName second = BlobName.of("artifacts", "job", "0", "b.txt");
        store().put(first, text("one"));
        store().put(second, text("two"));

        assertThat(store().put(first, text("replaced"))).isEqualTo(8);
        assertThat(read(first)).isEqualTo("replaced");

        assertThat(store().delete(first)).isTrue();
        assertThat(store().open(first)).isEmpty();
        assertThat(read(second)).isEqualTo("two");
        assertThat(names()).containsExactly("artifacts/job/0/b.txt");
    }

    @Test
    void an_empty_blob_is_a_blob() throws IOException {
        BlobName name = BlobName.of("workspaces", "workflow", "empty.tar.gz");

        assertThat(store().put(name, InputStream.nullInputStream())).isZero();

        assertThat(store().size(name)).contains(0L);
        assertThat(read(name)).isEmpty();
    }

    @Test
    void put_if_absent_keeps_the_first_blob_of_a_name() throws IOException {
        BlobName name = BlobName.of("caches", "project", "key.tar.gz");

        assertThat(store().putIfAbsent(name, text("first"))).contains(5L);
        assertThat(store().putIfAbsent(name, text("second"))).isEmpty();

        assertThat(read(name)).isEqualTo("first");
    }

    @Test
    void of_writers_racing_for_one_name_exactly_one_wins() throws Exception {
        BlobName name = BlobName.of("caches", "project", "raced.tar.gz");
        int writers = 4;
        CyclicBarrier start = new CyclicBarrier(writers);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<Optional<Long>>> results = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                String content = "writer " + i;
                Callable<Optional<Long>> write = () -> {
                    start.await();
                    return store().putIfAbsent(name, text(content));
                };
                results.add(pool.submit(write));
            }
            List<Long> won = new ArrayList<>();
            for (Future<Optional<Long>> result : results) {
                result.get().ifPresent(won::add);
            }

            assertThat(won).hasSize(1);
            assertThat(read(name)).startsWith("writer ");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void a_blob_of_several_parts_streams_in_and_out_intact() throws IOException {
        BlobName name = BlobName.of("workspaces", "workflow", "large.tar.gz");
        Generated written = new Generated(LARGE, 7);

        assertThat(store().put(name, written)).isEqualTo(LARGE);

        assertThat(store().size(name)).contains(LARGE);
        try (InputStream in = store().open(name).orElseThrow().content()) {
            assertThat(digestOf(in)).isEqualTo(digestOf(new Generated(LARGE, 7)));
        }
    }

    @Test
    void a_large_put_if_absent_of_a_taken_name_publishes_nothing_new() throws IOException {
        BlobName name = BlobName.of("caches", "project", "large.tar.gz");
        store().putIfAbsent(name, text("small and first"));

        assertThat(store().putIfAbsent(name, new Generated(LARGE, 3))).isEmpty();

        assertThat(read(name)).isEqualTo("small and first");
    }

    @Test
    void a_write_whose_stream_fails_half_way_publishes_nothing_and_replaces_nothing() throws IOException {
        BlobName fresh = BlobName.of("workspaces", "workflow", "broken.tar.gz");
        BlobName existing = BlobName.of("artifacts", "job", "0", "kept.txt");
        store().put(existing, text("kept"));

        assertThatThrownBy(() -> store().put(fresh, new Failing(new Generated(LARGE, 1), LARGE / 2)))
                .isInstanceOf(IOException.class).hasMessageContaining("client went away");
        assertThatThrownBy(() -> store().put(existing, new Failing(new Generated(LARGE, 2), 100)))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> store().putIfAbsent(fresh, new Failing(text("x".repeat(1000)), 10)))
                .isInstanceOf(IOException.class);

        assertThat(store().open(fresh)).isEmpty();
        assertThat(read(existing)).isEqualTo("kept");
        assertThat(names()).containsExactly("artifacts/job/0/kept.txt");
    }

    @Test
    void an_upload_over_its_limit_propagates_the_limits_exception_and_publishes_nothing() {
        BlobName name = BlobName.of("caches", "project", "too-big.tar.gz");
        InputStream overLimit = new InputStream() {
            @Override
            public int read() {
                throw new IllegalStateException("over the limit");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                throw new IllegalStateException("over the limit");
            }
        };

        assertThatThrownBy(() -> store().putIfAbsent(name, overLimit)).isInstanceOf(IllegalStateException.class);
        assertThat(size(name)).isEmpty();
    }

    String read(BlobName name) throws IOException {
        try (InputStream in = store().open(name).orElseThrow().content()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private Optional<Long> size(BlobName name) {
        try {
            return store().size(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static InputStream text(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] digestOf(InputStream in) throws IOException {
        try {
            DigestInputStream digesting = new DigestInputStream(in, MessageDigest.getInstance("SHA-256"));
            digesting.transferTo(OutputStreamSink.INSTANCE);
            return digesting.getMessageDigest().digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Discards what is written to it. */
    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }

    /** {@code size} bytes made from {@code seed} and their position as they are read: no array holds them. */
    static final class Generated extends InputStream {
        private final long size;
        private final long seed;
        private long position;

        Generated(long size, long seed) {
            this.size = size;
            this.seed = seed;
        }

        @Override
        public int read() {
            return position < size ? next() : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - position);
            for (int i = 0; i < n; i++) {
                b[off + i] = (byte) next();
            }
            return n;
        }

        private int next() {
            long x = (position++ + 1) * 0x9E3779B97F4A7C15L ^ seed;
            x ^= x >>> 29;
            return (int) (x & 0xff);
        }
    }

    /** Passes {@code until} bytes of another stream, then fails as a client that went away does. */
    static final class Failing extends InputStream {
        private final InputStream in;
        private long left;

        Failing(InputStream in, long until) {
            this.in = in;
            this.left = until;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                throw new IOException("the client went away");
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }
    }
}
