package dev.gantry.server.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * An {@link OutputStore} in the database ({@code gantry.output_piece}), so that every server of one database appends
 * to and reads the same streams: with several servers, an agent's successive output calls may reach different ones,
 * and a reader may ask a third. An append stores its body in pieces of at most {@link #PIECE} bytes, each in its own
 * short transaction (no connection is held while the client sends); each piece is inserted at the end the appender
 * read, and when another append (a server's note) took that offset first, the appender reads the end again and treats
 * what is stored as had, exactly as {@link FileOutputStore} does under its lock. A reader fetches a few pieces at a
 * time up to the length the stream had when it opened. {@link #within} writes in the caller's transaction instead,
 * so that a completion's output tail commits with the completion. Thread-safe (a store {@link #within} a transaction
 * as far as its handle is); a database failure surfaces as the JDBI exception.
 */
public final class DatabaseOutputStore implements OutputStore {
    /** The most bytes one row holds: large enough for few rows per call, small enough for a reader's batch. */
    static final int PIECE = 256 * 1024;
    /** How many pieces a reader fetches at once: at most 4 MiB in memory per reader. */
    static final int READ_BATCH = 16;

    private final Jdbi jdbi;
    /** The caller's transaction to work in ({@link #within}), or null for a short transaction per statement. */
    private final Handle transaction;

    public DatabaseOutputStore(Jdbi jdbi) {
        this(Objects.requireNonNull(jdbi, "jdbi"), null);
    }

    private DatabaseOutputStore(Jdbi jdbi, Handle transaction) {
        this.jdbi = jdbi;
        this.transaction = transaction;
    }

    @Override
    public OutputStore within(Handle transaction) {
        return new DatabaseOutputStore(jdbi, Objects.requireNonNull(transaction, "transaction"));
    }

    @Override
    public long length(UUID jobId, int nodeIndex) {
        checkNode(nodeIndex);
        return dao(d -> d.length(jobId, nodeIndex));
    }

    @Override
    public Map<Node, Long> lengths(Collection<Node> nodes) {
        List<Node> list = List.copyOf(nodes);
        UUID[] jobIds = list.stream().map(Node::jobId).toArray(UUID[]::new);
        int[] nodeIndexes = list.stream().mapToInt(Node::nodeIndex).toArray();
        Map<Node, Long> lengths = new HashMap<>();
        for (OutputPieceDao.Length l : dao(d -> d.lengths(jobIds, nodeIndexes))) {
            lengths.put(new Node(l.jobId(), l.nodeIndex()), l.length());
        }
        return lengths;
    }

    @Override
    public long append(UUID jobId, int nodeIndex, long offset, InputStream content) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        long stored = length(jobId, nodeIndex);
        if (offset > stored) {
            throw new OutputGapException(offset, stored);
        }
        byte[] piece = new byte[PIECE];
        long position = offset; // where the next byte of content belongs in the stream
        while (true) {
            if (position < stored) {
                position += skip(content, stored - position); // a resend of what is stored
                if (position < stored) {
                    return stored;
                }
            }
            int length = content.readNBytes(piece, 0, piece.length);
            if (length == 0) {
                return stored;
            }
            // Insert the piece at the end; should another append have taken the end first, what it stored counts
            // as had and the rest of the piece follows it.
            int from = 0;
            while (from < length && !insert(jobId, nodeIndex, position, Arrays.copyOfRange(piece, from, length))) {
                stored = length(jobId, nodeIndex);
                int had = (int) Math.min(length - from, stored - position);
                from += had;
                position += had;
            }
            position += length - from;
            stored = Math.max(stored, position);
        }
    }

    @Override
    public void appendNote(UUID jobId, int nodeIndex, String text) {
        checkNode(nodeIndex);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0) {
            return;
        }
        while (!insert(jobId, nodeIndex, length(jobId, nodeIndex), bytes)) {
            // another append took the end first: append after it
        }
    }

    @Override
    public InputStream read(UUID jobId, int nodeIndex, long offset) {
        checkNode(nodeIndex);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        // Fixed at open: bytes appended while the caller reads belong to its next read.
        long end = length(jobId, nodeIndex);
        return new Pieces(jobId, nodeIndex, Math.min(offset, end), end);
    }

    private boolean insert(UUID jobId, int nodeIndex, long at, byte[] data) {
        return dao(d -> d.insert(jobId, nodeIndex, at, data));
    }

    private <R> R dao(Function<OutputPieceDao, R> call) {
        return transaction != null ? call.apply(transaction.attach(OutputPieceDao.class))
                : jdbi.withExtension(OutputPieceDao.class, call::apply);
    }

    private static void checkNode(int nodeIndex) {
        if (nodeIndex < 0) {
            throw new IllegalArgumentException("node index must be >= 0, got " + nodeIndex);
        }
    }

    /** The stream from an offset to a fixed end, fetched {@link #READ_BATCH} pieces at a time. */
    private final class Pieces extends InputStream {
        private final UUID jobId;
        private final int nodeIndex;
        private final long end;
        private final Deque<OutputPieceDao.Piece> fetched = new ArrayDeque<>();
        /** The stream offset of the next byte to hand out. */
        private long position;
        /** Where the next fetch starts: the start of the piece holding {@link #position} at first. */
        private long nextFetch = -1;
        private byte[] current;
        private int inCurrent;

        Pieces(UUID jobId, int nodeIndex, long from, long end) {
            this.jobId = jobId;
            this.nodeIndex = nodeIndex;
            this.position = from;
            this.end = end;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            if (position >= end || !ensureCurrent()) {
                return -1;
            }
            int n = (int) Math.min(Math.min(len, current.length - inCurrent), end - position);
            System.arraycopy(current, inCurrent, b, off, n);
            inCurrent += n;
            position += n;
            return n;
        }

        /** Makes {@link #current} the piece that holds {@link #position}; false when the pieces ran out early. */
        private boolean ensureCurrent() {
            while (current == null || inCurrent == current.length) {
                if (fetched.isEmpty()) {
                    if (nextFetch < 0) {
                        nextFetch = dao(d -> d.pieceStart(jobId, nodeIndex, position));
                    }
                    long from = nextFetch;
                    fetched.addAll(dao(d -> d.pieces(jobId, nodeIndex, from, end, READ_BATCH)));
                    if (fetched.isEmpty()) {
                        return false;
                    }
                    OutputPieceDao.Piece last = fetched.getLast();
                    nextFetch = last.startOffset() + last.data().length;
                }
                OutputPieceDao.Piece piece = fetched.removeFirst();
                long pieceEnd = piece.startOffset() + piece.data().length;
                if (pieceEnd > position) {
                    current = piece.data();
                    inCurrent = (int) (position - piece.startOffset());
                }
            }
            return true;
        }
    }

    /** Reads and drops up to {@code count} bytes; returns how many it dropped (fewer at the end of the stream). */
    private static long skip(InputStream in, long count) throws IOException {
        byte[] scratch = new byte[(int) Math.min(64 * 1024, Math.max(1, count))];
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
