package dev.gantry.server.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.plan.Executor;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.Plan;
import dev.gantry.config.plan.PlanWorkflow;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.pipeline.PipelineError;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanChecksTest {
    private static final Executor ALPINE = new Executor.Docker(List.of(
            new Executor.DockerImage("alpine", null, null, null, null, java.util.Map.of(), null, null)));

    @Test
    void compile_errors_are_rendered_as_the_compiler_renders_them() {
        List<Diagnostic> errors = ConfigCompiler.create().validate(".circleci/config.yml", """
                version: 2.1
                jobs:
                  build:
                    docker: [{image: alpine}]
                    steps: [{run: make}]
                workflows:
                  w:
                    jobs:
                      - build:
                          requires: [biuld]
                """).errors();

        List<PipelineError> rendered = PlanChecks.compileErrors(errors);

        assertThat(rendered).singleElement().satisfies(error -> {
            assertThat(error.type()).isEqualTo(PipelineError.CONFIG);
            assertThat(error.message()).isEqualTo(errors.getFirst().format())
                    .startsWith(".circleci/config.yml:10:22: error: ");
        });
    }

    @Test
    void past_the_limit_one_line_counts_the_rest() {
        List<Diagnostic> errors = new ArrayList<>();
        for (int i = 1; i <= PlanChecks.MAX_ERRORS + 7; i++) {
            errors.add(new Diagnostic(Diagnostic.Severity.ERROR, "config.yml", i, 1, "", "bad " + i, null));
        }

        List<PipelineError> rendered = PlanChecks.compileErrors(errors);

        assertThat(rendered).hasSize(PlanChecks.MAX_ERRORS + 1);
        assertThat(rendered.getLast().message()).startsWith("… and 7 more errors");
    }

    @Test
    void each_build_job_of_an_unknown_class_is_named_with_the_known_classes() {
        Plan plan = new Plan(false, List.of(new PlanWorkflow("w", List.of(
                PlannedJobsTest.job("small-one", JobType.BUILD, "small", ALPINE, 1),
                PlannedJobsTest.job("huge-one", JobType.BUILD, "huge", ALPINE, 1),
                PlannedJobsTest.job("mac", JobType.BUILD, "macos.m1.medium.gen1", ALPINE, 1),
                PlannedJobsTest.job("hold", JobType.APPROVAL, null, null, 1)))));

        List<PipelineError> problems = PlanChecks.unrunnable(plan, ResourceClasses.defaults());

        assertThat(problems).extracting(PipelineError::type).containsOnly(PipelineError.PLAN);
        assertThat(problems).extracting(PipelineError::message).satisfiesExactly(
                huge -> assertThat(huge).contains("'huge-one'", "'w'", "'huge'", ResourceClasses.defaults().known()),
                mac -> assertThat(mac).contains("'mac'", "'macos.m1.medium.gen1'"));
    }

    @Test
    void a_setup_config_can_run() {
        assertThat(PlanChecks.unrunnable(new Plan(true, List.of()), ResourceClasses.defaults())).isEmpty();
    }

    @Test
    void a_plan_of_known_classes_and_no_workflows_is_runnable() {
        assertThat(PlanChecks.unrunnable(new Plan(false, List.of()), ResourceClasses.defaults())).isEmpty();
        assertThat(PlanChecks.unrunnable(new Plan(false, List.of(new PlanWorkflow("w", List.of(
                PlannedJobsTest.job("build", JobType.BUILD, null, ALPINE, 1))))), ResourceClasses.defaults())).isEmpty();
    }

    @Test
    void a_pipeline_over_the_job_cap_is_one_plan_error_naming_the_count_and_the_cap() {
        assertThat(PlanChecks.tooManyJobs(1000, 1000, "the config's workflows have")).isEmpty();
        assertThat(PlanChecks.tooManyJobs(1001, 1000, "the config's workflows have")).singleElement()
                .satisfies(error -> {
                    assertThat(error.type()).isEqualTo(PipelineError.PLAN);
                    assertThat(error.message()).startsWith("the config's workflows have 1001 jobs")
                            .contains("the 1000 a pipeline may have", "GANTRY_MAX_PIPELINE_JOBS");
                });
    }
}
