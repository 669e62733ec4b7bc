package dev.gantry.server.storage;

import dev.gantry.server.ServerException;

/** An append would leave a gap: its offset is beyond the stored length, which the client should resend from. */
public final class OutputGapException extends ServerException {
    private final long length;

    public OutputGapException(long offset, long length) {
        super("output offset " + offset + " is beyond the stored length " + length + "; resend from " + length);
        this.length = length;
    }

    /** The stored length: where the client's next append must start. */
    public long length() {
        return length;
    }
}
