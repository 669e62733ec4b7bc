package dev.gantry.agent.task;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gantry.agent.protocol.Assignment;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CircleEnvironmentTest {
    static final Assignment ASSIGNMENT = new Assignment("lease-1", new Assignment.Task("job-1", 1),
            new Assignment.Job("job-1", 17, "test-linux", 1, 3, "large", 4, 8192, new Assignment.ExecutorImage("docker", "cimg/x"),
                    new ObjectMapper().createObjectNode()),
            new Assignment.Pipeline("pipe-1", 5, null, "v1.2.0", "abc123", Map.of()),
            new Assignment.Workflow("wf-1", "ci"),
            new Assignment.Project("proj-1", "gantry/acme/app", "app", "acme", "https://git.example/acme/app.git"));

    @Test
    void circleci_variables_come_from_the_assignment_and_the_job_overrides_the_base() {
        PlanJob job = new PlanJob("test-linux", "test", JobType.BUILD, Map.of(), "large", null, 3, null, null,
                Map.of("CI", "overridden-by-job", "PATH", "/job/bin"), List.of(), null, Map.of(), List.of());

        Map<String, String> env = CircleEnvironment.build(ASSIGNMENT, job, Path.of("/w/t/home"),
                Path.of("/w/t/home/project"), Path.of("/tmp/.bash_env"), "http://gantry:8080/", Map.of("PATH", "/usr/bin", "HOME", "/root",
                        "LANG", "C.UTF-8"));

        assertThat(env).containsEntry("CIRCLECI", "true").containsEntry("CI", "overridden-by-job")
                .containsEntry("PATH", "/job/bin").containsEntry("LANG", "C.UTF-8")
                .containsEntry("HOME", "/w/t/home").containsEntry("BASH_ENV", "/tmp/.bash_env")
                .containsEntry("CIRCLE_WORKING_DIRECTORY", "/w/t/home/project")
                .containsEntry("CIRCLE_TAG", "v1.2.0").containsEntry("CIRCLE_SHA1", "abc123")
                .containsEntry("CIRCLE_BUILD_NUM", "17").containsEntry("CIRCLE_JOB", "test-linux")
                .containsEntry("CIRCLE_NODE_INDEX", "1").containsEntry("CIRCLE_NODE_TOTAL", "3")
                .containsEntry("CIRCLE_WORKFLOW_ID", "wf-1").containsEntry("CIRCLE_WORKFLOW_JOB_ID", "job-1")
                .containsEntry("CIRCLE_PIPELINE_ID", "pipe-1").containsEntry("CIRCLE_PIPELINE_NUMBER", "5")
                .containsEntry("CIRCLE_PROJECT_USERNAME", "acme").containsEntry("CIRCLE_PROJECT_REPONAME", "app")
                .containsEntry("CIRCLE_REPOSITORY_URL", "https://git.example/acme/app.git")
                .containsEntry("CIRCLE_BUILD_URL", "http://gantry:8080/api/v2/project/gantry/acme/app/job/17")
                .doesNotContainKeys("CIRCLE_BRANCH", "CIRCLE_PULL_REQUEST", "CIRCLE_PR_NUMBER");
    }

    @Test
    void a_pull_request_pipeline_sets_circleci_s_pull_request_variables() {
        Assignment pr = new Assignment(ASSIGNMENT.lease(), ASSIGNMENT.task(), ASSIGNMENT.job(),
                new Assignment.Pipeline("pipe-2", 6, "feature", null, "def456", Map.of(), "42",
                        "https://github.com/acme/app/pull/42", null),
                ASSIGNMENT.workflow(), ASSIGNMENT.project());
        PlanJob job = new PlanJob("test-linux", "test", JobType.BUILD, Map.of(), "large", null, 1, null, null,
                Map.of(), List.of(), null, Map.of(), List.of());

        Map<String, String> env = CircleEnvironment.build(pr, job, Path.of("/w/t/home"), Path.of("/w/t/home/project"),
                Path.of("/tmp/.bash_env"), "http://gantry:8080/", Map.of());

        assertThat(env).containsEntry("CIRCLE_BRANCH", "feature")
                .containsEntry("CIRCLE_PULL_REQUEST", "https://github.com/acme/app/pull/42")
                .containsEntry("CIRCLE_PULL_REQUESTS", "https://github.com/acme/app/pull/42")
                .containsEntry("CIRCLE_PR_NUMBER", "42");
    }

    @Test
    void a_setup_pipeline_s_jobs_get_its_continuation_key() {
        Assignment setup = new Assignment(ASSIGNMENT.lease(), ASSIGNMENT.task(), ASSIGNMENT.job(),
                new Assignment.Pipeline("pipe-3", 7, "main", null, "abc", Map.of(), null, null, "k3y"),
                ASSIGNMENT.workflow(), ASSIGNMENT.project());
        PlanJob job = new PlanJob("generate", "generate", JobType.BUILD, Map.of(), "small", null, 1, null, null,
                Map.of(), List.of(), null, Map.of(), List.of());

        assertThat(CircleEnvironment.build(setup, job, Path.of("/h"), Path.of("/h/p"), Path.of("/tmp/b"), "http://gantry:8080", Map.of()))
                .containsEntry("CIRCLE_CONTINUATION_KEY", "k3y");
        assertThat(CircleEnvironment.build(ASSIGNMENT, job, Path.of("/h"), Path.of("/h/p"), Path.of("/tmp/b"), "http://gantry:8080",
                Map.of())).doesNotContainKey("CIRCLE_CONTINUATION_KEY");
    }

    @Test
    void project_and_context_variables_sit_over_the_base_and_under_circleci_s_and_the_job_s() {
        Map<String, String> secrets = new java.util.LinkedHashMap<>();
        secrets.put("API_TOKEN", "from-context");
        secrets.put("LANG", "from-project");
        secrets.put("CIRCLE_JOB", "from-context");
        secrets.put("DEPLOY_ENV", "from-context");
        Assignment withSecrets = new Assignment(ASSIGNMENT.lease(), ASSIGNMENT.task(), ASSIGNMENT.job(),
                ASSIGNMENT.pipeline(), ASSIGNMENT.workflow(), ASSIGNMENT.project(), secrets);
        PlanJob job = new PlanJob("test-linux", "test", JobType.BUILD, Map.of(), "large", null, 1, null, null,
                Map.of("DEPLOY_ENV", "from-job"), List.of(), null, Map.of(), List.of());

        Map<String, String> env = CircleEnvironment.build(withSecrets, job, Path.of("/h"), Path.of("/h/p"),
                Path.of("/tmp/b"), "http://gantry:8080", Map.of("LANG", "C.UTF-8"));

        assertThat(env).containsEntry("API_TOKEN", "from-context").containsEntry("LANG", "from-project")
                .containsEntry("CIRCLE_JOB", "test-linux").containsEntry("DEPLOY_ENV", "from-job");
        assertThat(CircleEnvironment.withStep(env, Map.of("API_TOKEN", "from-step")))
                .containsEntry("API_TOKEN", "from-step");
    }

    @Test
    void an_assignment_shows_its_secrets_names_but_never_their_values() {
        Assignment withSecrets = new Assignment(ASSIGNMENT.lease(), ASSIGNMENT.task(), ASSIGNMENT.job(),
                ASSIGNMENT.pipeline(), ASSIGNMENT.workflow(), ASSIGNMENT.project(), Map.of("API_TOKEN", "s3cr3t"));

        assertThat(withSecrets.toString()).contains("API_TOKEN").doesNotContain("s3cr3t");
        assertThat(ASSIGNMENT.secrets()).isEmpty();
    }

    @Test
    void a_step_adds_its_variables_over_the_job_s() {
        Map<String, String> env = CircleEnvironment.withStep(Map.of("A", "1", "C", "4"), Map.of("A", "2", "B", "3"));

        assertThat(env).containsEntry("A", "2").containsEntry("B", "3").containsEntry("C", "4");
    }
}
