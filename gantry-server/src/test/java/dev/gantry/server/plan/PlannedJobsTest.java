package dev.gantry.server.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.config.plan.Executor;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.RequiredStatus;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.http.Json;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PlannedJobsTest {
    private static final OffsetDateTime NOW = OffsetDateTime.of(2026, 11, 30, 10, 0, 0, 0, ZoneOffset.UTC);

    @Test
    void a_docker_executor_shows_its_primary_image() {
        Executor docker = new Executor.Docker(List.of(image("cimg/node:20.11"), image("postgres:16")));

        assertThat(PlannedJobs.executorSummary(docker)).isEqualTo(Map.of("type", "docker", "image", "cimg/node:20.11"));
    }

    @Test
    void a_machine_executor_shows_its_image_or_null_for_the_default_one() {
        assertThat(PlannedJobs.executorSummary(new Executor.Machine("ubuntu-2204:current", false)))
                .isEqualTo(Map.of("type", "machine", "image", "ubuntu-2204:current"));
        assertThat(PlannedJobs.executorSummary(new Executor.Machine(null, true)))
                .containsEntry("type", "machine").containsEntry("image", null);
    }

    @Test
    void a_macos_executor_shows_its_xcode_version() {
        assertThat(PlannedJobs.executorSummary(new Executor.Macos("15.2.0")))
                .isEqualTo(Map.of("type", "macos", "image", "xcode 15.2.0"));
    }

    @Test
    void a_build_job_without_a_class_gets_the_default_one_and_its_size() throws Exception {
        PlanJob job = job("test", JobType.BUILD, null, new Executor.Docker(List.of(image("alpine"))), 3);

        JobRow row = PlannedJobs.row(job, ResourceClasses.defaults(), UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), 7, NOW);

        assertThat(row.resourceClass()).isEqualTo("medium");
        assertThat(row.cpu()).isEqualTo(2);
        assertThat(row.memoryMb()).isEqualTo(4096);
        assertThat(row.number()).isEqualTo(7);
        assertThat(row.status()).isEqualTo("blocked");
        assertThat(row.type()).isEqualTo("build");
        assertThat(row.parallelism()).isEqualTo(3);
        assertThat(Json.MAPPER.readTree(row.executor())).isEqualTo(Json.MAPPER.readTree(
                "{\"type\": \"docker\", \"image\": \"alpine\"}"));
        JsonNode spec = Json.MAPPER.readTree(row.spec());
        assertThat(spec.get("name").asText()).isEqualTo("test");
        assertThat(spec.get("parallelism").asInt()).isEqualTo(3);
    }

    @Test
    void an_approval_asks_for_no_class_size_or_executor_and_keeps_its_requires() throws Exception {
        Map<String, List<RequiredStatus>> requires = new LinkedHashMap<>();
        requires.put("build", List.of(RequiredStatus.SUCCESS, RequiredStatus.FAILED));
        PlanJob job = new PlanJob("hold", "hold", JobType.APPROVAL, requires, null, null, 1, null, null, Map.of(),
                List.of(), null, Map.of(), List.of());

        JobRow row = PlannedJobs.row(job, ResourceClasses.defaults(), UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), 1, NOW);

        assertThat(row.resourceClass()).isNull();
        assertThat(row.cpu()).isNull();
        assertThat(row.memoryMb()).isNull();
        assertThat(row.executor()).isNull();
        assertThat(row.type()).isEqualTo("approval");
        assertThat(Json.MAPPER.readTree(row.requires())).isEqualTo(Json.MAPPER.readTree(
                "{\"build\": [\"success\", \"failed\"]}"));
    }

    static PlanJob job(String name, JobType type, String resourceClass, Executor executor, int parallelism) {
        return new PlanJob(name, name, type, Map.of(), resourceClass, executor, parallelism, null, null, Map.of(),
                List.of(), null, Map.of(), List.of());
    }

    private static Executor.DockerImage image(String image) {
        return new Executor.DockerImage(image, null, null, null, null, Map.of(), null, null);
    }
}
