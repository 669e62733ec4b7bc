package dev.gantry.server.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.PipelineContext;
import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.pipeline.Pipeline;
import dev.gantry.server.pipeline.PipelineState;
import dev.gantry.server.pipeline.PipelineTrigger;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectSlug;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PipelineContextsTest {
    private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");
    private static final ProjectSlug SLUG = new ProjectSlug("acme", "app");
    private static final Project PROJECT = new Project(UUID.randomUUID(), SLUG, "https://github.com/acme/app.git", T);

    @Test
    void a_branch_pipeline_gives_the_compiler_its_ref_commit_number_id_and_project() {
        Pipeline pipeline = new Pipeline(UUID.randomUUID(), SLUG, 12, PipelineState.PENDING, GitRef.branch("main"),
                null, Map.of("deploy", true), T, T);

        PipelineContext context = PipelineContexts.of(pipeline, PROJECT, "a".repeat(40));

        assertThat(context.branch()).isEqualTo("main");
        assertThat(context.tag()).isNull();
        assertThat(context.revision()).isEqualTo("a".repeat(40));
        assertThat(context.number()).isEqualTo(12);
        assertThat(context.id()).isEqualTo(pipeline.id().toString());
        assertThat(context.projectSlug()).isEqualTo("gantry/acme/app");
        assertThat(context.projectGitUrl()).isEqualTo("https://github.com/acme/app.git");
        assertThat(context.triggerSource()).isEqualTo("api");
        assertThat(context.parameters()).isEqualTo(Map.of("deploy", true));
    }

    @Test
    void a_pull_request_webhook_gives_trigger_source_webhook_and_its_base_revision() {
        PipelineTrigger trigger = new PipelineTrigger(PipelineTrigger.Type.WEBHOOK, "octocat", null, T,
                new PipelineTrigger.Vcs("github", "c".repeat(40), "7", "https://github.com/acme/app/pull/7", null,
                        null, null, null, null));
        Pipeline pipeline = new Pipeline(UUID.randomUUID(), SLUG, 3, PipelineState.PENDING, GitRef.branch("feature"),
                "d".repeat(40), Map.of(), T, T, trigger);

        PipelineContext context = PipelineContexts.of(pipeline, PROJECT, "d".repeat(40));

        assertThat(context.triggerSource()).isEqualTo("webhook");
        assertThat(context.baseRevision()).isEqualTo("c".repeat(40));
    }

    @Test
    void an_api_trigger_has_no_base_revision() {
        Pipeline pipeline = new Pipeline(UUID.randomUUID(), SLUG, 1, PipelineState.PENDING, GitRef.branch("main"),
                null, Map.of(), T, T);

        assertThat(PipelineContexts.of(pipeline, PROJECT, "a".repeat(40)).baseRevision()).isEmpty();
    }

    @Test
    void a_tag_pipeline_has_no_branch() {
        Pipeline pipeline = new Pipeline(UUID.randomUUID(), SLUG, 1, PipelineState.PENDING, GitRef.tag("v1.0.0"),
                null, Map.of(), T, T);

        PipelineContext context = PipelineContexts.of(pipeline, PROJECT, "b".repeat(40));

        assertThat(context.tag()).isEqualTo("v1.0.0");
        assertThat(context.branch()).isNull();
    }

    @Test
    void whole_numbers_become_longs_and_other_numbers_their_text() {
        assertThat(PipelineContexts.parameterValue(3)).isEqualTo(3L);
        assertThat(PipelineContexts.parameterValue(3_000_000_000L)).isEqualTo(3_000_000_000L);
        assertThat(PipelineContexts.parameterValue(BigInteger.valueOf(5))).isEqualTo(5L);
        assertThat(PipelineContexts.parameterValue(new BigInteger("99999999999999999999"))).isEqualTo(
                "99999999999999999999");
        assertThat(PipelineContexts.parameterValue(1.5)).isEqualTo("1.5");
        assertThat(PipelineContexts.parameterValue(new BigDecimal("2.50"))).isEqualTo("2.50");
        assertThat(PipelineContexts.parameterValue("x")).isEqualTo("x");
        assertThat(PipelineContexts.parameterValue(false)).isEqualTo(false);
    }
}
