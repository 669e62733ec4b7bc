package dev.gantry.queue;

/** Where a message is in its life; the codes are what the database stores. */
public enum MessageState {
    READY(0), RUNNING(1), DONE(2), DEAD(3), REPLAYED(4);

    final short code;

    MessageState(int code) {
        this.code = (short) code;
    }

    static MessageState of(int code) {
        for (MessageState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown message state code " + code);
    }
}
