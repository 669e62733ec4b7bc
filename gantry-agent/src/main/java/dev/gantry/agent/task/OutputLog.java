package dev.gantry.agent.task;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The node's one output stream, kept in a file so the shipper can resend from any acknowledged offset without
 * holding the whole output in memory. Every step's process output (through an {@link #output}) and the agent's own
 * lines are appended here, with the job's secrets masked before they reach the file, so nothing stored or shipped
 * holds them. Thread-safe: writers (a step's output pump, background steps, the task thread) and the reading shipper
 * share it.
 */
final class OutputLog implements AutoCloseable {
    private final FileChannel channel;
    private final SecretMasker masker;
    private long length;

    OutputLog(Path file, SecretMasker masker) throws IOException {
        // 0600: what a step printed of a secret in a form the masker does not know may still be in it
        this.channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        this.masker = masker;
    }

    /**
     * A new writer's way in (one per step process): each writer has its own, so a secret split between two of its
     * chunks is masked even when another writer's output comes in between. Close it when the writer is done.
     */
    MaskedOutput output() {
        return new MaskedOutput(masker, this::append);
    }

    /** Appends {@code text} and a newline, masked. */
    void line(String text) {
        byte[] bytes = masker.mask((text + "\n").getBytes(StandardCharsets.UTF_8));
        append(bytes, 0, bytes.length);
    }

    /** Appends bytes as they are: callers mask them first. */
    private synchronized void append(byte[] bytes, int offset, int count) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, count);
        try {
            while (buffer.hasRemaining()) {
                length += channel.write(buffer, length);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the task's output log", e);
        }
    }

    synchronized long length() {
        return length;
    }

    /** Up to {@code max} bytes from {@code from} on; empty when there is nothing past it. */
    byte[] read(long from, int max) {
        long end;
        synchronized (this) {
            end = Math.min(length, from + max);
        }
        if (end <= from) {
            return new byte[0];
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) (end - from));
        try {
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, from + buffer.position());
                if (n < 0) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the task's output log", e);
        }
        return buffer.array();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
