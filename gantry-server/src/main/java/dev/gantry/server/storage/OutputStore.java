package dev.gantry.server.storage;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The output of each parallel node of a job: one append-only byte stream per (job, node), as the agent sends it.
 * Appends to one stream are serialised; reads may run beside them and see a prefix. Implementations are thread-safe.
 */
public interface OutputStore {
    /** The stream's length in bytes; 0 when nothing was written yet. */
    long length(UUID jobId, int nodeIndex) throws IOException;

    /** One (job, node) output stream. */
    record Node(UUID jobId, int nodeIndex) {
    }

    /**
     * The lengths of several streams at once, for a watcher of many (the web UI's live pages): a store in the
     * database answers in one query.
     */
    default Map<Node, Long> lengths(Collection<Node> nodes) throws IOException {
        Map<Node, Long> lengths = new HashMap<>();
        for (Node node : nodes) {
            lengths.put(node, length(node.jobId(), node.nodeIndex()));
        }
        return lengths;
    }

    /**
     * Appends the part of {@code content} the store does not have yet: {@code content} is the stream from byte
     * {@code offset} on; bytes below the stored length (a resend) are skipped, the rest appended. A client that goes
     * away mid-body leaves what arrived appended, which a resend from its own offset then completes.
     *
     * @return the length after the append
     * @throws OutputGapException if {@code offset} is beyond the stored length; nothing is appended
     */
    long append(UUID jobId, int nodeIndex, long offset, InputStream content) throws IOException;

    /** Appends {@code text} (UTF-8) at the end, whatever the length: the server's own notes, e.g. a lost agent. */
    void appendNote(UUID jobId, int nodeIndex, String text) throws IOException;

    /** The stream from {@code offset} to its current end; empty when there is nothing there. The caller closes it. */
    InputStream read(UUID jobId, int nodeIndex, long offset) throws IOException;

    /**
     * This store writing within {@code transaction}, for what must commit or roll back with the caller's transaction
     * (a completion's output tail, the lease sweeper's note) without taking a second connection while the caller
     * holds one. Output kept in the database is written in it; files are written at once, whatever it does.
     */
    default OutputStore within(Handle transaction) {
        return this;
    }
}
