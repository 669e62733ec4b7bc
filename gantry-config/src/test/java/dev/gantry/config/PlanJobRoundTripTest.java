package dev.gantry.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanJson;
import dev.gantry.config.plan.PlanWorkflow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every job of every golden plan survives {@code writeJob} then {@code readJob} unchanged: the agent's view of a job. */
class PlanJobRoundTripTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.gantry.config.GoldenTest#cases")
    void every_job_of_a_golden_plan_reads_back_equal(String name) throws IOException {
        Path dir = GoldenTest.GOLDEN.resolve(name);
        CompileResult result = GoldenTest.compile(dir, Files.readString(dir.resolve("config.yml"), StandardCharsets.UTF_8));
        if (!result.ok()) {
            return; // an error case has no jobs
        }
        for (PlanWorkflow workflow : result.plan().workflows()) {
            for (PlanJob job : workflow.jobs()) {
                String json = PlanJson.writeJob(job);

                PlanJob read = PlanJson.readJob(json);

                assertThat(read).as(name + " / " + workflow.name() + " / " + job.name()).isEqualTo(job);
                assertThat(PlanJson.writeJob(read)).isEqualTo(json);
            }
        }
    }
}
