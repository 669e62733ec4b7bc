package dev.gantry.agent.task;

import java.util.Arrays;

/**
 * One writer's output (a step process's) on its way into a sink with the secrets masked. A secret may arrive split
 * between two writes, so the end of a chunk that could be the start of a masked form is held back until the next
 * write or {@link #close} decides it: at most the longest form's length less one byte, and only when the chunk really
 * ends like a form's start; the rest is passed on at once. After {@link #close} further writes are dropped (output of
 * a leftover process that belongs to no step). Thread-safe: the pump writes while the step's thread may close.
 */
final class MaskedOutput implements AutoCloseable {
    /** Where masked bytes go. */
    @FunctionalInterface
    interface Sink {
        void write(byte[] bytes, int offset, int count);
    }

    private static final byte[] NOTHING = new byte[0];

    private final SecretMasker masker;
    private final Sink sink;
    private byte[] held = NOTHING;
    private boolean closed;

    MaskedOutput(SecretMasker masker, Sink sink) {
        this.masker = masker;
        this.sink = sink;
    }

    synchronized void write(byte[] bytes, int offset, int count) {
        if (closed || count == 0) {
            return;
        }
        if (masker.isEmpty()) {
            sink.write(bytes, offset, count);
            return;
        }
        byte[] data = bytes;
        int from = offset;
        int to = offset + count;
        if (held.length > 0) {
            data = Arrays.copyOf(held, held.length + count);
            System.arraycopy(bytes, offset, data, held.length, count);
            from = 0;
            to = data.length;
        }
        pass(data, from, to, false);
    }

    /** Passes on what was held back (the step ended: no more of a secret is coming) and drops later writes. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (held.length > 0) {
            pass(held, 0, held.length, true);
        }
    }

    private void pass(byte[] data, int from, int to, boolean end) {
        SecretMasker.Bytes out = new SecretMasker.Bytes(to - from);
        int rest = masker.scan(data, from, to, end, out);
        held = rest == to ? NOTHING : Arrays.copyOfRange(data, rest, to);
        if (out.size > 0) {
            sink.write(out.array, 0, out.size);
        }
    }
}
