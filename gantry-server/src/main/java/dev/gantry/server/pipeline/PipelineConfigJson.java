package dev.gantry.server.pipeline;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * {@code GET /api/v2/pipeline/{id}/config} in CircleCI's shape, every config an empty string where the pipeline has
 * none, plus Gantry's {@code orbs}: the exact version each orb reference compiled with.
 */
record PipelineConfigJson(String source, String compiled, @JsonProperty("setup-config") String setupConfig,
                          @JsonProperty("compiled-setup-config") String compiledSetupConfig, List<Orb> orbs) {

    record Orb(String reference, String version) {
    }

    static PipelineConfigJson of(PipelineReads.Config config) {
        PipelineDao.StoredConfig stored = config.stored();
        return new PipelineConfigJson(text(stored.source()), text(stored.compiled()), text(stored.setupSource()),
                text(stored.setupCompiled()),
                config.orbs().stream().map(orb -> new Orb(orb.reference(), orb.version())).toList());
    }

    private static String text(String config) {
        return config == null ? "" : config;
    }
}
