package dev.gantry.server.storage;

import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** Every statement on {@code gantry.output_piece}: the pieces of each (job, node) output stream, in order. */
@RegisterConstructorMapper(OutputPieceDao.Piece.class)
interface OutputPieceDao {
    record Piece(long startOffset, byte[] data) {
    }

    /** The stream's length: where its last piece ends (the primary key finds that piece), 0 without pieces. */
    @SqlQuery("""
            SELECT coalesce((SELECT start_offset + length(data)
                             FROM gantry.output_piece
                             WHERE job_id = :jobId AND node_index = :nodeIndex
                             ORDER BY start_offset DESC
                             LIMIT 1), 0)
            """)
    long length(UUID jobId, int nodeIndex);

    /** A stream and its length, as {@link #lengths} answers. */
    record Length(UUID jobId, int nodeIndex, long length) {
    }

    /** The lengths of the streams {@code (jobIds[i], nodeIndexes[i])}, each from its last piece as {@link #length}. */
    @SqlQuery("""
            SELECT w.job_id, w.node_index,
                   coalesce((SELECT p.start_offset + length(p.data)
                             FROM gantry.output_piece p
                             WHERE p.job_id = w.job_id AND p.node_index = w.node_index
                             ORDER BY p.start_offset DESC
                             LIMIT 1), 0) AS length
            FROM unnest(CAST(:jobIds AS uuid[]), CAST(:nodeIndexes AS int[])) AS w (job_id, node_index)
            """)
    @RegisterConstructorMapper(Length.class)
    List<Length> lengths(UUID[] jobIds, int[] nodeIndexes);

    /**
     * Appends {@code data} at {@code startOffset}, the end the caller read.
     *
     * @return false when another append took that offset first: the caller reads the end again
     */
    @SqlUpdate("""
            INSERT INTO gantry.output_piece (job_id, node_index, start_offset, data)
            VALUES (:jobId, :nodeIndex, :startOffset, :data)
            ON CONFLICT (job_id, node_index, start_offset) DO NOTHING
            """)
    boolean insert(UUID jobId, int nodeIndex, long startOffset, byte[] data);

    /** Where the piece that holds byte {@code offset} starts (0 when there is none). */
    @SqlQuery("""
            SELECT coalesce(max(start_offset), 0)
            FROM gantry.output_piece
            WHERE job_id = :jobId AND node_index = :nodeIndex AND start_offset <= :offset
            """)
    long pieceStart(UUID jobId, int nodeIndex, long offset);

    /** Up to {@code limit} pieces that start in [{@code from}, {@code end}), in order. */
    @SqlQuery("""
            SELECT start_offset, data
            FROM gantry.output_piece
            WHERE job_id = :jobId AND node_index = :nodeIndex AND start_offset >= :from AND start_offset < :end
            ORDER BY start_offset
            LIMIT :limit
            """)
    List<Piece> pieces(UUID jobId, int nodeIndex, long from, long end, int limit);
}
