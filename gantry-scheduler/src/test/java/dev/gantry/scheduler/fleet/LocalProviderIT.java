package dev.gantry.scheduler.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.InstanceType;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: {@code sh} scripts stand in for agents. */
class LocalProviderIT {
    private static final InstanceType LARGE = Fleets.type("local-large", 8).type();

    @TempDir
    Path logs;
    @TempDir
    Path pids;

    private final List<LocalProvider> started = new ArrayList<>();

    @AfterEach
    void stopAll() {
        started.forEach(LocalProvider::close);
    }

    private LocalProvider provider(String script) {
        // $0 is the instance id and $1 its vCPU, as a CLI would pass --name and --cpu.
        return started(new LocalProvider((id, type) -> List.of("sh", "-c", script, id,
                Integer.toString(type.capacity().vcpu())), logs, pids, Duration.ofSeconds(1)));
    }

    private LocalProvider started(LocalProvider provider) {
        started.add(provider);
        return provider;
    }

    @Test
    void launch_starts_the_command_for_the_instance_with_its_output_in_a_log_per_instance() throws Exception {
        LocalProvider p = provider("echo agent $0 with $1 cpus; exec sleep 600");

        assertThat(p.launch("local", LARGE, "local-1")).isInstanceOf(FleetProvider.LaunchResult.Launched.class);

        Path log = logs.resolve("local-1.log");
        await(() -> Files.exists(log) && readQuietly(log).contains("agent local-1 with 8 cpus"));
        assertThat(p.process("local-1")).hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
    }

    @Test
    void terminate_stops_the_process_and_everything_it_started() throws Exception {
        LocalProvider p = provider("sleep 600 & sleep 600 & wait");
        p.launch("local", LARGE, "local-1");
        ProcessHandle shell = p.process("local-1").orElseThrow();
        await(() -> shell.descendants().count() == 2);
        List<ProcessHandle> tree = List.of(shell, shell.descendants().toList().get(0), shell.descendants().toList().get(1));

        p.terminate("local-1");
        p.stopped("local-1").get(10, TimeUnit.SECONDS);

        assertThat(tree).noneMatch(ProcessHandle::isAlive);
        assertThat(p.process("local-1")).isEmpty();
    }

    @Test
    void a_process_that_ignores_term_is_killed_after_the_grace_period() throws Exception {
        LocalProvider p = provider("trap '' TERM; echo trapped; while true; do sleep 1; done");
        p.launch("local", LARGE, "stubborn");
        ProcessHandle shell = p.process("stubborn").orElseThrow();
        await(() -> readQuietly(logs.resolve("stubborn.log")).contains("trapped"));

        p.terminate("stubborn");
        p.stopped("stubborn").get(10, TimeUnit.SECONDS);

        assertThat(shell.isAlive()).isFalse();
    }

    @Test
    void a_type_at_its_limit_answers_insufficient_capacity_so_the_controller_falls_back() {
        LocalProvider p = provider("exec sleep 600");
        p.setLimit("local-large", 1);

        assertThat(p.launch("local", LARGE, "local-1")).isInstanceOf(FleetProvider.LaunchResult.Launched.class);
        assertThat(p.launch("local", LARGE, "local-2"))
                .isInstanceOf(FleetProvider.LaunchResult.InsufficientCapacity.class);

        p.setLimit("local-large", 0);
        p.terminate("local-1");
        assertThat(p.launch("local", LARGE, "local-3"))
                .isInstanceOf(FleetProvider.LaunchResult.InsufficientCapacity.class);
    }

    @Test
    void a_command_that_cannot_start_is_a_failed_launch() {
        LocalProvider provider = started(new LocalProvider((id, type) -> List.of("/nonexistent/gantry-agent"), logs,
                pids, Duration.ofSeconds(1)));

        assertThat(provider.launch("local", LARGE, "local-1")).isInstanceOf(FleetProvider.LaunchResult.Failed.class);
    }

    @Test
    void close_stops_every_instance() {
        LocalProvider p = provider("exec sleep 600");
        p.launch("local", LARGE, "local-1");
        p.launch("local", LARGE, "local-2");
        List<ProcessHandle> handles = List.of(p.process("local-1").orElseThrow(), p.process("local-2").orElseThrow());

        p.close();

        assertThat(handles).noneMatch(ProcessHandle::isAlive);
    }

    @Test
    void a_provider_on_the_pid_files_of_a_killed_one_reports_what_it_left_running_and_terminates_it() throws Exception {
        LocalProvider killed = provider("exec sleep 600");
        killed.launch("local", LARGE, "local-1");
        ProcessHandle orphan = killed.process("local-1").orElseThrow();
        assertThat(pids.resolve("local-1.pid")).exists();

        LocalProvider restarted = provider("exec sleep 600"); // the killed one is not closed before it
        assertThat(restarted.leftBehind()).containsExactly(
                new FleetProvider.LeftBehind("local-1", "local", "local-large"));
        restarted.terminate("local-1");
        restarted.stopped("local-1").get(10, TimeUnit.SECONDS);

        assertThat(orphan.isAlive()).isFalse();
        await(() -> !Files.exists(pids.resolve("local-1.pid")));
    }

    @Test
    void a_pid_file_whose_pid_may_belong_to_another_process_now_is_removed_and_the_process_left_alone()
            throws Exception {
        LocalProvider killed = provider("exec sleep 600");
        killed.launch("local", LARGE, "local-1");
        ProcessHandle other = killed.process("local-1").orElseThrow();
        // As if local-1 had exited and the system had given its pid to a process started at another time.
        Path pidFile = pids.resolve("local-1.pid");
        Properties recorded = new Properties();
        try (Reader in = Files.newBufferedReader(pidFile)) {
            recorded.load(in);
        }
        recorded.setProperty("started", Instant.parse(recorded.getProperty("started")).minusSeconds(60).toString());
        try (Writer out = Files.newBufferedWriter(pidFile)) {
            recorded.store(out, null);
        }

        LocalProvider restarted = provider("exec sleep 600");

        assertThat(restarted.leftBehind()).isEmpty();
        assertThat(pidFile).doesNotExist();
        assertThat(other.isAlive()).isTrue();
    }

    private static String readQuietly(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
