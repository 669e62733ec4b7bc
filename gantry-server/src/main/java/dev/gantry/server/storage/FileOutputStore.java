package dev.gantry.server.storage;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@link OutputStore} of files {@code root/<job id>/<node index>.log}, for one server per database (the default;
 * several servers keep output in the database, {@link DatabaseOutputStore}). Appends to one file take one of a fixed
 * set of locks (chosen by the stream's hash), so they are serialised within this process, the only one that writes
 * the files. Thread-safe.
 */
public final class FileOutputStore implements OutputStore {
    private static final int STRIPES = 64;
    private static final int BUFFER = 64 * 1024;

    private final Path root;
    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    public FileOutputStore(Path root) {
        this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    @Override
    public long length(UUID jobId, int nodeIndex) throws IOException {
        try {
            return Files.size(file(jobId, nodeIndex));
        } catch (NoSuchFileException none) {
            return 0;
        }
    }

    @Override
    public long append(UUID jobId, int nodeIndex, long offset, InputStream content) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        ReentrantLock lock = lock(jobId, nodeIndex);
        lock.lock();
        try (FileChannel channel = open(jobId, nodeIndex)) {
            long length = channel.size();
            if (offset > length) {
                throw new OutputGapException(offset, length);
            }
            long have = length - offset;
            long skipped = skip(content, have);
            if (skipped < have) {
                return length; // the whole body was a resend of what is stored
            }
            channel.position(length);
            byte[] buffer = new byte[BUFFER];
            for (int n; (n = content.read(buffer)) != -1; ) {
                ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, n);
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
            }
            return channel.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void appendNote(UUID jobId, int nodeIndex, String text) throws IOException {
        ReentrantLock lock = lock(jobId, nodeIndex);
        lock.lock();
        try (FileChannel channel = open(jobId, nodeIndex)) {
            channel.position(channel.size());
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public InputStream read(UUID jobId, int nodeIndex, long offset) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(file(jobId, nodeIndex), StandardOpenOption.READ);
        } catch (NoSuchFileException none) {
            return new ByteArrayInputStream(new byte[0]);
        }
        try {
            // Fixed at open: bytes appended while the caller reads belong to its next read.
            long end = channel.size();
            channel.position(Math.min(offset, end));
            return new Bounded(Channels.newInputStream(channel), end - channel.position());
        } catch (IOException | RuntimeException failure) {
            channel.close();
            throw failure;
        }
    }

    private FileChannel open(UUID jobId, int nodeIndex) throws IOException {
        Path file = file(jobId, nodeIndex);
        Files.createDirectories(file.getParent());
        return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    private Path file(UUID jobId, int nodeIndex) {
        if (nodeIndex < 0) {
            throw new IllegalArgumentException("node index must be >= 0, got " + nodeIndex);
        }
        return root.resolve(jobId.toString()).resolve(nodeIndex + ".log");
    }

    private ReentrantLock lock(UUID jobId, int nodeIndex) {
        return locks[Math.floorMod(31 * jobId.hashCode() + nodeIndex, STRIPES)];
    }

    /** Reads no further than a fixed number of bytes. */
    private static final class Bounded extends FilterInputStream {
        private long left;

        Bounded(InputStream in, long left) {
            super(in);
            this.left = left;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(Math.min(n, left));
            left -= skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(in.available(), left);
        }
    }

    /** Reads and drops up to {@code count} bytes; returns how many it dropped (fewer at the end of the stream). */
    private static long skip(InputStream in, long count) throws IOException {
        byte[] scratch = new byte[(int) Math.min(BUFFER, Math.max(1, count))];
        long dropped = 0;
        while (dropped < count) {
            int n = in.read(scratch, 0, (int) Math.min(scratch.length, count - dropped));
            if (n == -1) {
                break;
            }
            dropped += n;
        }
        return dropped;
    }
}
