package dev.gantry.server.ui;

import java.util.List;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * What the live pages' watcher ({@link LiveChanges}) reads on each tick: a fingerprint of everything a live page shows
 * of each watched job or pipeline, all watched ones in one query, each from its primary key and the indexes of its
 * children, so a tick costs the same however many pages watch the same rows.
 */
@RegisterConstructorMapper(LiveDao.Fingerprint.class)
interface LiveDao {
    /** A digest of a row and its children; it changes when anything a live page shows of them changes. */
    record Fingerprint(UUID id, String digest) {
    }

    /** A job's status, cancel request, times, tasks and steps (not its output: the output store's length is). */
    @SqlQuery("""
            SELECT j.id, md5(concat_ws('|', j.status, j.cancel_requested, j.started_at, j.stopped_at,
                   (SELECT string_agg(concat_ws(':', t.node_index, t.status), ',' ORDER BY t.node_index)
                    FROM gantry.job_task t WHERE t.job_id = j.id),
                   (SELECT string_agg(concat_ws(':', s.node_index, s.step_index, s.status, s.exit_code,
                                                s.output_offset, s.stopped_at), ','
                                      ORDER BY s.node_index, s.step_index)
                    FROM gantry.job_step s WHERE s.job_id = j.id))) AS digest
            FROM gantry.job j
            WHERE j.id = ANY(:ids)
            """)
    List<Fingerprint> jobs(UUID[] ids);

    /** A pipeline's state, its workflows' statuses and times, and their jobs' (every attempt). */
    @SqlQuery("""
            SELECT p.id, md5(concat_ws('|', p.state,
                   (SELECT string_agg(concat_ws(':', w.id, w.status, w.stopped_at,
                            (SELECT string_agg(concat_ws(':', j.id, j.status, j.started_at, j.stopped_at), ','
                                               ORDER BY j.id)
                             FROM gantry.job j WHERE j.workflow_id = w.id)), ',' ORDER BY w.id)
                    FROM gantry.workflow w WHERE w.pipeline_id = p.id))) AS digest
            FROM gantry.pipeline p
            WHERE p.id = ANY(:ids)
            """)
    List<Fingerprint> pipelines(UUID[] ids);
}
