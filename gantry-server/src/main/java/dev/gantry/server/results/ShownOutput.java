package dev.gantry.server.results;

import dev.gantry.server.storage.OutputStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Job output as the API and the web UI show it: a node that a retry carried over (it had succeeded before the job's
 * agent was lost elsewhere) reads the output of the attempt that ran it, as {@code gantry.result_nodes} says; every
 * other node its own. Writes go to the named job unchanged. Thread-safe.
 */
public final class ShownOutput implements OutputStore {
    private final OutputStore stored;
    private final Jdbi jdbi;

    public ShownOutput(OutputStore stored, Jdbi jdbi) {
        this.stored = stored;
        this.jdbi = jdbi;
    }

    @Override
    public long length(UUID jobId, int nodeIndex) throws IOException {
        return stored.length(ranIn(jobId, nodeIndex), nodeIndex);
    }

    /** Unresolved: the live pages watch lengths for changes, and a carried node, long finished, never changes. */
    @Override
    public Map<Node, Long> lengths(Collection<Node> nodes) throws IOException {
        return stored.lengths(nodes);
    }

    @Override
    public long append(UUID jobId, int nodeIndex, long offset, InputStream content) throws IOException {
        return stored.append(jobId, nodeIndex, offset, content);
    }

    @Override
    public void appendNote(UUID jobId, int nodeIndex, String text) throws IOException {
        stored.appendNote(jobId, nodeIndex, text);
    }

    @Override
    public InputStream read(UUID jobId, int nodeIndex, long offset) throws IOException {
        return stored.read(ranIn(jobId, nodeIndex), nodeIndex, offset);
    }

    private UUID ranIn(UUID jobId, int nodeIndex) {
        return jdbi.withExtension(JobResultsDao.class, dao -> dao.outputOwner(jobId, nodeIndex)).orElse(jobId);
    }
}
