package dev.gantry.server.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.WorkflowStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AdvanceTest {
    /** A workflow under construction: jobs by name, in declaration order. */
    private final Map<String, Advance.Job> jobs = new LinkedHashMap<>();
    private final List<Advance.Job> earlierAttempts = new ArrayList<>();

    private AdvanceTest job(String name, String type, JobStatus status, String... requires) {
        Map<String, List<String>> req = new LinkedHashMap<>();
        for (String r : requires) {
            String[] parts = r.split(":");
            req.put(parts[0], parts.length == 1 ? List.of("success") : List.of(parts[1].split(",")));
        }
        jobs.put(name, new Advance.Job(UUID.randomUUID(), name, 1, type, status, req));
        return this;
    }

    private AdvanceTest build(String name, JobStatus status, String... requires) {
        return job(name, "build", status, requires);
    }

    private AdvanceTest retried(String name, JobStatus retryStatus) {
        Advance.Job first = jobs.get(name);
        earlierAttempts.add(new Advance.Job(first.id(), name, 1, first.type(), JobStatus.INFRASTRUCTURE_FAIL,
                first.requires()));
        jobs.put(name, new Advance.Job(UUID.randomUUID(), name, 2, first.type(), retryStatus, first.requires()));
        return this;
    }

    private Advance.Decision decide(WorkflowStatus current) {
        List<Advance.Job> all = new ArrayList<>(earlierAttempts);
        all.addAll(jobs.values());
        return Advance.decide(current, all);
    }

    private Advance.Decision decide() {
        return decide(WorkflowStatus.RUNNING);
    }

    private Map<String, JobStatus> moves(Advance.Decision decision) {
        Map<String, JobStatus> moves = new LinkedHashMap<>();
        for (Advance.Transition t : decision.transitions()) {
            jobs.values().stream().filter(j -> j.id().equals(t.jobId())).findFirst()
                    .ifPresent(j -> moves.put(j.name(), t.to()));
        }
        return moves;
    }

    @Test
    void a_new_workflow_queues_only_its_roots() {
        build("build", JobStatus.BLOCKED).build("test-a", JobStatus.BLOCKED, "build")
                .build("test-b", JobStatus.BLOCKED, "build").build("deploy", JobStatus.BLOCKED, "test-a", "test-b");
        Advance.Decision d = decide();
        assertThat(moves(d)).containsExactly(Map.entry("build", JobStatus.QUEUED));
        assertThat(d.status()).isEqualTo(WorkflowStatus.RUNNING);
    }

    @Test
    void fan_in_waits_for_every_upstream_and_fans_out_when_they_succeed() {
        build("build", JobStatus.SUCCESS).build("test-a", JobStatus.SUCCESS, "build")
                .build("test-b", JobStatus.RUNNING, "build").build("deploy", JobStatus.BLOCKED, "test-a", "test-b");
        assertThat(moves(decide())).isEmpty();
        assertThat(decide().changes(WorkflowStatus.RUNNING)).isFalse();

        build("test-b", JobStatus.SUCCESS, "build");
        assertThat(moves(decide())).containsExactly(Map.entry("deploy", JobStatus.QUEUED));
    }

    @Test
    void a_failure_makes_the_workflow_failing_then_failed_and_its_dependents_not_run() {
        build("build", JobStatus.SUCCESS).build("lint", JobStatus.RUNNING, "build")
                .build("test", JobStatus.FAILED, "build").build("deploy", JobStatus.BLOCKED, "test", "lint")
                .build("after-deploy", JobStatus.BLOCKED, "deploy");
        Advance.Decision running = decide();
        assertThat(moves(running)).isEmpty();
        assertThat(running.status()).isEqualTo(WorkflowStatus.FAILING);

        build("lint", JobStatus.SUCCESS, "build");
        Advance.Decision done = decide();
        assertThat(moves(done)).containsExactly(Map.entry("deploy", JobStatus.NOT_RUN),
                Map.entry("after-deploy", JobStatus.NOT_RUN));
        assertThat(done.status()).isEqualTo(WorkflowStatus.FAILED);
    }

    @Test
    void requires_with_statuses_runs_a_job_on_failure_and_skips_it_on_success() {
        build("build", JobStatus.FAILED).build("report", JobStatus.BLOCKED, "build:failed,canceled");
        assertThat(moves(decide())).containsExactly(Map.entry("report", JobStatus.QUEUED));

        build("build", JobStatus.SUCCESS).build("report", JobStatus.BLOCKED, "build:failed");
        Advance.Decision d = decide();
        assertThat(moves(d)).containsExactly(Map.entry("report", JobStatus.NOT_RUN));
        assertThat(d.status()).isEqualTo(WorkflowStatus.SUCCESS);
    }

    @Test
    void an_approval_holds_the_workflow_until_approved() {
        build("build", JobStatus.SUCCESS).job("hold", "approval", JobStatus.BLOCKED, "build")
                .build("deploy", JobStatus.BLOCKED, "hold");
        Advance.Decision held = decide();
        assertThat(moves(held)).containsExactly(Map.entry("hold", JobStatus.ON_HOLD));
        assertThat(held.status()).isEqualTo(WorkflowStatus.ON_HOLD);

        job("hold", "approval", JobStatus.SUCCESS, "build");
        assertThat(moves(decide())).containsExactly(Map.entry("deploy", JobStatus.QUEUED));
    }

    @Test
    void a_workflow_with_a_job_still_running_beside_an_approval_is_running() {
        build("build", JobStatus.RUNNING).job("hold", "approval", JobStatus.ON_HOLD);
        assertThat(decide().status()).isEqualTo(WorkflowStatus.RUNNING);
    }

    @Test
    void no_ops_succeed_at_once_and_unblock_their_dependents_in_the_same_advance() {
        job("start", "no-op", JobStatus.BLOCKED).build("build", JobStatus.BLOCKED, "start");
        assertThat(moves(decide())).containsExactly(Map.entry("start", JobStatus.SUCCESS),
                Map.entry("build", JobStatus.QUEUED));
    }

    @Test
    void a_lost_first_attempt_is_retried_and_its_dependents_wait_for_the_retry() {
        build("build", JobStatus.INFRASTRUCTURE_FAIL).build("test", JobStatus.BLOCKED, "build");
        Advance.Decision d = decide();
        assertThat(d.retries()).extracting(Advance.Job::name).containsExactly("build");
        assertThat(moves(d)).isEmpty();
        assertThat(d.status()).isEqualTo(WorkflowStatus.RUNNING);

        retried("build", JobStatus.SUCCESS);
        Advance.Decision after = decide();
        assertThat(after.retries()).isEmpty();
        assertThat(moves(after)).containsExactly(Map.entry("test", JobStatus.QUEUED));
    }

    @Test
    void a_lost_retry_is_not_retried_again_and_fails_the_workflow() {
        build("build", JobStatus.BLOCKED).build("test", JobStatus.BLOCKED, "build");
        retried("build", JobStatus.INFRASTRUCTURE_FAIL);
        Advance.Decision d = decide();
        assertThat(d.retries()).isEmpty();
        assertThat(moves(d)).containsExactly(Map.entry("test", JobStatus.NOT_RUN));
        assertThat(d.status()).isEqualTo(WorkflowStatus.FAILED);
    }

    @Test
    void a_canceled_job_cancels_the_workflow_when_nothing_failed() {
        build("build", JobStatus.CANCELED).build("test", JobStatus.BLOCKED, "build");
        Advance.Decision d = decide();
        assertThat(moves(d)).containsExactly(Map.entry("test", JobStatus.NOT_RUN));
        assertThat(d.status()).isEqualTo(WorkflowStatus.CANCELED);
    }

    @Test
    void a_finished_workflow_decides_nothing() {
        build("build", JobStatus.BLOCKED);
        Advance.Decision d = decide(WorkflowStatus.CANCELED);
        assertThat(d.changes(WorkflowStatus.CANCELED)).isFalse();
    }

    @Test
    void deciding_again_on_the_result_decides_nothing_new() {
        build("build", JobStatus.SUCCESS).build("a", JobStatus.BLOCKED, "build").build("b", JobStatus.BLOCKED, "a");
        Advance.Decision first = decide();
        assertThat(moves(first)).containsExactly(Map.entry("a", JobStatus.QUEUED));
        build("a", JobStatus.QUEUED, "build");
        assertThat(decide().changes(first.status())).isFalse();
    }

    @Test
    void a_requirement_on_an_unknown_job_is_a_bug_not_a_silent_wait() {
        build("test", JobStatus.BLOCKED, "missing");
        assertThatThrownBy(this::decide).isInstanceOf(IllegalStateException.class).hasMessageContaining("missing");
    }
}
