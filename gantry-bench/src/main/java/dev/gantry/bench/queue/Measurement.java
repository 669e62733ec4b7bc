package dev.gantry.bench.queue;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The database's side of one workload: a checkpoint first (so every workload starts owing the same full-page
 * writes), the WAL written from start to end, and the system's dead tuples, sampled every second and read once more
 * at the end after the statistics have settled; and the machine's, how busy its cores were and how much of their time
 * the hypervisor took.
 */
final class Measurement implements AutoCloseable {
    /**
     * The cost of a workload.
     *
     * @param cpuBusy  the share of the machine's CPU time that was busy (NaN when unknown)
     * @param cpuSteal the share that the hypervisor gave to other guests (NaN when unknown)
     */
    record Cost(long walBytes, long deadAfter, long deadPeak, double cpuBusy, double cpuSteal) {
    }

    private final BenchServer server;
    private final DataSource dataSource;
    private final List<String> schemas;
    private final String walStart;
    private final CpuTimes cpuStart;
    private final AtomicLong deadPeak = new AtomicLong();
    private final ScheduledExecutorService sampler;

    private Measurement(BenchServer server, DataSource dataSource, List<String> schemas) throws SQLException {
        this.server = server;
        this.dataSource = dataSource;
        this.schemas = schemas;
        server.checkpoint();
        this.walStart = server.walPosition();
        this.cpuStart = CpuTimes.now();
        this.sampler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("bench-dead-tuples")
                .daemon().factory());
        sampler.scheduleWithFixedDelay(this::sample, 1, 1, TimeUnit.SECONDS);
    }

    static Measurement begin(BenchServer server, DataSource dataSource, QueueSystem system) throws SQLException {
        return new Measurement(server, dataSource, system.schemas());
    }

    private void sample() {
        try {
            deadPeak.accumulateAndGet(BenchServer.deadTuples(dataSource, schemas), Math::max);
        } catch (SQLException | RuntimeException e) {
            // one missed sample only lowers the peak's resolution
        }
    }

    /** Stops sampling and reads the WAL written and the dead tuples now; the workload's messages must be done. */
    Cost end() throws SQLException, InterruptedException {
        long wal = server.walBytesSince(walStart);
        CpuTimes cpu = CpuTimes.now();
        close();
        BenchServer.settleStatistics();
        long after = BenchServer.deadTuples(dataSource, schemas);
        return new Cost(wal, after, Math.max(after, deadPeak.get()), cpu.busySince(cpuStart),
                cpu.stealSince(cpuStart));
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }
}
