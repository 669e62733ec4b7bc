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
