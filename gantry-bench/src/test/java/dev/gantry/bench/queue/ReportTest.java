package dev.gantry.bench.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static final String RESULT = "RESULT gantry_per_s=\\S+ db_scheduler_per_s=\\S+ jobrunr_per_s=\\S+ "
            + "ratio_vs_db_scheduler=\\S+ p99_start_ms=\\S+ wal_bytes_per_msg=\\S+ dead_tuples_after=\\S+";

    private static Figures burn(String system, double perSecond) {
        return new Figures(system, 100_000, 100_000, 100_000, 20_000, perSecond, Double.NaN, Double.NaN, Double.NaN,
                0, new Measurement.Cost(80_000_000, 1_200, 5_000, 0.8, 0.05), false);
    }

    private static Figures steady(String system, double p99Ms) {
        return new Figures(system, 60_000, 59_990, 60_000, 2_000, 1_999.7, 4.2, p99Ms, 40.0, 0,
                new Measurement.Cost(45_000_000, 321, 900, 0.7, Double.NaN), false);
    }

    @Test
    void the_result_line_takes_throughput_from_the_burn_down_and_latency_wal_and_dead_tuples_from_gantry_steady() {
        String line = Report.resultLine(
                List.of(burn("gantry-queue", 5_432.6), burn("db-scheduler", 2_000), burn("jobrunr", 800.4)),
                List.of(steady("gantry-queue", 12.01), steady("db-scheduler", 30)));

        assertThat(line).matches(RESULT).isEqualTo("RESULT gantry_per_s=5433 db_scheduler_per_s=2000 "
                + "jobrunr_per_s=800 ratio_vs_db_scheduler=2.72 p99_start_ms=13 wal_bytes_per_msg=750 "
                + "dead_tuples_after=321");
    }

    @Test
    void a_system_that_fell_behind_is_charged_wal_per_finished_message_not_per_completion_in_the_window() {
        // 60,000 enqueued, half completed in the window, all by the end of the drain that the WAL also covers.
        Figures behind = new Figures("gantry-queue", 60_000, 30_000, 60_000, 2_000, 1_000, 900, 4_000, 4_100, 0,
                new Measurement.Cost(54_000_000, 0, 900, 0.9, 0), false);
        assertThat(behind.walPerMessage()).isEqualTo(900);
    }

    @Test
    void a_system_that_failed_leaves_nan_in_the_result_line_and_keeps_its_format() {
        String line = Report.resultLine(List.of(burn("gantry-queue", 1_000)), List.of());

        assertThat(line).matches(RESULT).contains("gantry_per_s=1000 db_scheduler_per_s=nan jobrunr_per_s=nan "
                + "ratio_vs_db_scheduler=nan p99_start_ms=nan wal_bytes_per_msg=nan dead_tuples_after=nan");
    }

    @Test
    void the_tables_show_each_system_with_its_ratio_to_gantry_and_the_cpu_it_had() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        Report.burnDownTable(out, List.of(burn("gantry-queue", 4_000), burn("db-scheduler", 2_000)));
        Report.steadyTable(out, List.of(steady("gantry-queue", 12), steady("db-scheduler", 30)));

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList())
                .anySatisfy(l -> assertThat(l).startsWith("db-scheduler").contains("2,000", "0.50×")
                        .endsWith("80 %    5 %"))
                .anySatisfy(l -> assertThat(l).startsWith("gantry-queue").contains("12.0", "1.00×")
                        .endsWith("70 %      -"));
    }

    @Test
    void the_sustained_table_shows_each_maximum_against_gantry_and_against_the_system_s_own_burn_down() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        Report.sustainedTable(out, List.of(steady("gantry-queue", 12), burn("db-scheduler", 1_000)),
                List.of(burn("gantry-queue", 2_500), burn("db-scheduler", 1_250)));

        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList())
                .anySatisfy(l -> assertThat(l).startsWith("gantry-queue").contains("2,000", "1.00×", "0.80×"))
                .anySatisfy(l -> assertThat(l).startsWith("db-scheduler").contains("1,000", "0.50×", "0.80×"));
    }

    @Test
    void the_quick_run_is_smaller_and_shorter_than_the_full_one_with_the_same_workers_and_rate_fraction() {
        QueueBenchConfig quick = QueueBenchConfig.of(true);
        QueueBenchConfig full = QueueBenchConfig.of(false);

        assertThat(full.burnDownMessages()).isEqualTo(100_000);
        assertThat(quick.burnDownMessages()).isEqualTo(20_000);
        assertThat(quick.steadyFor()).isLessThan(full.steadyFor());
        assertThat(quick.sustainedFor()).isLessThan(full.sustainedFor());
        assertThat(quick.sustainedBacklog()).isEqualTo(full.sustainedBacklog());
        assertThat(quick.workers()).isEqualTo(full.workers()).isEqualTo(8);
        assertThat(quick.steadyFraction()).isEqualTo(full.steadyFraction()).isEqualTo(0.7);
    }

    @Test
    void each_producer_load_names_its_workload_and_goal_in_the_progress_line() {
        assertThat(new Steady.Load.Rate(8_804).describe()).isEqualTo("steady (8,804/s asked)");
        assertThat(new Steady.Load.Backlog(2_000).describe()).isEqualTo("sustained (keeping 2,000 waiting)");
    }

    @Test
    void db_scheduler_instance_ids_carry_the_enqueue_time_after_the_sequence_number() {
        assertThat(DbSchedulerSystem.enqueuedNanos("17-123456789012")).isEqualTo(123_456_789_012L);
        assertThat(DbSchedulerSystem.enqueuedNanos("3--5")).isEqualTo(-5L);
    }
}
