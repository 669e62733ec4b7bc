package dev.gantry.queue;

import java.time.Duration;

/**
 * How the queue's database is doing: the signals that preceded the incident (WAL written faster than it can be
 * archived, dead tuples piling up, slow commits).
 *
 * @param walBytesPerSecond WAL written per second since the previous probe, or over 200 ms when that was more than a
 *                          minute ago (the whole server, not only the queue)
 * @param deadTuples        dead row versions in the queue's tables, as the statistics collector last counted them
 * @param liveTuples        live rows in the queue's tables, likewise
 * @param commitLatency     how long a minimal write transaction took to commit
 */
public record DatabaseHealth(double walBytesPerSecond, long deadTuples, long liveTuples, Duration commitLatency) {
}
