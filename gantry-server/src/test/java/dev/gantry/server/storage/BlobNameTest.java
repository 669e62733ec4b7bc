package dev.gantry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlobNameTest {
    @ParameterizedTest
    @ValueSource(strings = {"report.html", "reports/coverage/index.html", "a b/c+d.txt", "..hidden/x", "a/...",
            "ünïcode/файл.txt"})
    void relative_paths_inside_the_root_are_names(String path) {
        assertThat(BlobName.parse(path)).get().hasToString(path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/etc/passwd", "..", "../x", "a/../../x", "a/./b", "a//b", "a/", "a\\..\\b", "a\0b",
            "a/\n/b"})
    void paths_that_could_leave_the_root_or_confuse_it_are_refused(String path) {
        assertThat(BlobName.parse(path)).isEmpty();
    }

    @Test
    void a_name_longer_than_the_limit_is_refused() {
        assertThat(BlobName.parse("a".repeat(BlobName.MAX_LENGTH + 1))).isEmpty();
        assertThat(BlobName.parse("a".repeat(BlobName.MAX_LENGTH))).isPresent();
    }
}
