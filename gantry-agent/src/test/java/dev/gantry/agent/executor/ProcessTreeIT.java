package dev.gantry.agent.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The scan for a task's processes by their marker, on real processes (Linux). */
class ProcessTreeIT {
    @Test
    void a_marked_process_is_found_only_among_processes_started_since_the_cutoff() throws Exception {
        long since = ProcessTree.threadStartTicks();
        String marker = "it-" + UUID.randomUUID();
        ProcessBuilder builder = new ProcessBuilder("sleep", "30");
        builder.environment().put(ProcessTree.MARKER_VARIABLE, marker);
        Process process = builder.start();
        try {
            assertThat(since).as("this thread's start, in ticks since boot").isPositive();
            assertThat(ProcessTree.marked(marker, since)).extracting(ProcessHandle::pid)
                    .containsExactly(process.pid());
            assertThat(ProcessTree.marked(marker, Long.MAX_VALUE)).as("started before the cutoff").isEmpty();
        } finally {
            process.destroyForcibly().waitFor();
        }
    }
}
