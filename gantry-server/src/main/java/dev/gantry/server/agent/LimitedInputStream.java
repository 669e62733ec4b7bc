package dev.gantry.server.agent;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;

/** Passes at most {@code limit} bytes through; reading one more throws the supplied exception. Not thread-safe. */
final class LimitedInputStream extends FilterInputStream {
    private final Supplier<? extends RuntimeException> overLimit;
    private long left;

    LimitedInputStream(InputStream in, long limit, Supplier<? extends RuntimeException> overLimit) {
        super(in);
        this.left = limit;
        this.overLimit = overLimit;
    }

    @Override
    public int read() throws IOException {
        int b = in.read();
        if (b != -1 && --left < 0) {
            throw overLimit.get();
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
            left -= n;
            if (left < 0) {
                throw overLimit.get();
            }
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = in.skip(n);
        left -= skipped;
        if (left < 0) {
            throw overLimit.get();
        }
        return skipped;
    }
}
