package dev.gantry.bench.queue;

import static org.jobrunr.server.BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.configuration.JobRunrConfiguration.JobRunrConfigurationResult;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;

/**
 * JobRunr (open-source edition) on its {@link PostgresStorageProvider}, which creates its own tables, with a
 * {@link BackgroundJobServer} of W workers polling every {@link #POLL_INTERVAL}: the shortest that JobRunr accepts
 * for a SQL store ("the smallest supported pollInterval is 5 seconds"). Producers enqueue a stream of jobs with
 * {@link JobScheduler#enqueue(java.util.stream.Stream, org.jobrunr.jobs.lambdas.JobLambdaFromStream)}, which saves
 * them in batches. JobRunr keeps succeeded jobs in its table (it deletes them after 36 h by default).
 *
 * <p>JobRunr is configured once per JVM (its static {@code BackgroundJob} façade), so a run has one instance.
 */
final class JobRunrSystem implements QueueSystem {
    static final Duration POLL_INTERVAL = Duration.ofSeconds(5);

    private DataSource dataSource;
    private JobScheduler scheduler;
    private BackgroundJobServer server;

    @Override
    public String name() {
        return "jobrunr";
    }

    @Override
    public String describe(QueueBenchConfig config) {
        return String.format("JobRunr: PostgresStorageProvider, andWorkerCount(%d), andPollInterval(%ds) (its "
                + "minimum for SQL stores); producers use JobScheduler.enqueue(Stream, …)", config.workers(),
                POLL_INTERVAL.toSeconds());
    }

    @Override
    public void setup(DataSource dataSource, QueueBenchConfig config) {
        this.dataSource = dataSource;
        JobRunrConfigurationResult result = JobRunr.configure()
                .useStorageProvider(new PostgresStorageProvider(dataSource))
                .useBackgroundJobServer(usingStandardBackgroundJobServerConfiguration()
                        .andWorkerCount(config.workers())
                        .andPollInterval(POLL_INTERVAL), false)
                .initialize();
        scheduler = result.getJobScheduler();
        server = result.getBackgroundJobServer();
    }

    @Override
    public void enqueue(List<Long> enqueuedNanos) {
        scheduler.enqueue(enqueuedNanos.stream(), nanos -> JobRunrNoopJob.run(nanos));
    }

    @Override
    public void start(StartProbe probe) {
        JobRunrNoopJob.probe = probe;
        server.start();
    }

    @Override
    public long pending() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM jobrunr_jobs "
                     + "WHERE state IN ('AWAITING', 'SCHEDULED', 'ENQUEUED', 'PROCESSING')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public List<String> schemas() {
        return List.of("public");
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop();
            server = null;
            JobRunr.destroy();
        }
    }
}
