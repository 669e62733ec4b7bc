package dev.gantry.config.orb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OrbVersionsTest {
    private static final List<String> VERSIONS = List.of("4.9.0", "5.1.0", "5.2.0", "5.2.3", "5.10.1", "dev:alpha",
            "6.0.0");

    @Test
    void an_exact_version_picks_itself_or_nothing() {
        assertThat(OrbVersions.choose(VERSIONS, "5.2.0")).contains("5.2.0");
        assertThat(OrbVersions.choose(VERSIONS, "dev:alpha")).contains("dev:alpha");
        assertThat(OrbVersions.choose(VERSIONS, "5.2.9")).isEmpty();
        assertThat(OrbVersions.choose(VERSIONS, "dev:beta")).isEmpty();
    }

    @Test
    void a_prefix_picks_the_highest_release_under_it_numerically() {
        assertThat(OrbVersions.choose(VERSIONS, "5")).contains("5.10.1");
        assertThat(OrbVersions.choose(VERSIONS, "5.2")).contains("5.2.3");
        assertThat(OrbVersions.choose(VERSIONS, "5.3")).isEmpty();
        assertThat(OrbVersions.choose(VERSIONS, "7")).isEmpty();
    }

    @Test
    void volatile_picks_the_highest_release_never_a_dev_version() {
        assertThat(OrbVersions.choose(VERSIONS, "volatile")).contains("6.0.0");
        assertThat(OrbVersions.choose(List.of("dev:alpha"), "volatile")).isEmpty();
    }

    @Test
    void references_are_told_apart() {
        assertThat(List.of("1.2.3", "dev:x", "1", "1.2", "volatile")).allMatch(OrbVersions::isReference);
        assertThat(List.of("1.2.3.4", "dev:", "latest", "v1", "1.x", "")).noneMatch(OrbVersions::isReference);
        assertThat(OrbVersions.isExact("1.2")).isFalse();
    }
}
