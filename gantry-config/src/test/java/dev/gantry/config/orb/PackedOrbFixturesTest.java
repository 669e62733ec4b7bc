package dev.gantry.config.orb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The real orbs under {@code src/test/resources/orbs} were packed by {@link OrbPacker} from their published sources
 * (see {@code orbs/SOURCES.md}). One small orb's source is kept, so packing it must reproduce its fixture byte for
 * byte.
 *
 * <p>To regenerate the fixtures, lay the sources out as {@code DIR/<namespace>/<name>@<version>/src} and run with
 * {@code -Dorbs.sources=DIR}; each is packed into {@code orbs/<namespace>/<name>@<version>.yml}. Review the diff.
 */
class PackedOrbFixturesTest {
    static final Path ORBS = Path.of("src/test/resources/orbs");
    static final Path KEPT_SOURCE = Path.of("src/test/resources/orb-sources/continuation@2.0.1");

    @Test
    void packing_the_kept_continuation_source_reproduces_its_fixture_exactly() throws Exception {
        String expected = Files.readString(ORBS.resolve("circleci/continuation@2.0.1.yml"), StandardCharsets.UTF_8);
        assertThat(OrbPacker.pack(KEPT_SOURCE.resolve("src"))).isEqualTo(expected);
        assertThat(OrbPacker.pack(KEPT_SOURCE)).as("the repository root works too").isEqualTo(expected);
    }

    @Test
    void regenerates_fixtures_from_sources_when_asked() throws Exception {
        String sources = System.getProperty("orbs.sources");
        assumeTrue(sources != null && !sources.isBlank(), "set -Dorbs.sources=DIR to regenerate");
        Path root = Path.of(sources);
        for (Path namespace : children(root)) {
            for (Path orb : children(namespace)) {
                Path out = ORBS.resolve(namespace.getFileName().toString()).resolve(orb.getFileName() + ".yml");
                Files.createDirectories(out.getParent());
                Files.writeString(out, OrbPacker.pack(orb.resolve("src")), StandardCharsets.UTF_8);
            }
        }
    }

    private static List<Path> children(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).sorted().toList();
        }
    }
}
