package dev.gantry.agent.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheKeyTemplateTest {
    static final CacheKeyTemplate.Values VALUES = new CacheKeyTemplate.Values() {
        @Override
        public String branch() {
            return "feature/x";
        }

        @Override
        public String revision() {
            return "0123abcd";
        }

        @Override
        public long buildNum() {
            return 42;
        }

        @Override
        public String environment(String name) {
            return Map.of("NODE_VERSION", "20").get(name);
        }

        @Override
        public long epochSeconds() {
            return 1_700_000_000L;
        }

        @Override
        public String arch() {
            return "linux-amd64";
        }

        @Override
        public String checksum(String file) {
            if (!file.equals("package-lock.json")) {
                throw new IllegalArgumentException("cannot read '" + file + "'");
            }
            return "q1w2e3+/=";
        }
    };

    @Test
    void every_placeholder_renders_with_or_without_spaces() {
        assertThat(CacheKeyTemplate.render("v1-{{ .Branch }}-{{.Revision}}-{{ .BuildNum }}-{{ epoch }}-{{ arch }}", VALUES))
                .isEqualTo("v1-feature/x-0123abcd-42-1700000000-linux-amd64");
        assertThat(CacheKeyTemplate.render("deps-{{ checksum \"package-lock.json\" }}", VALUES))
                .isEqualTo("deps-q1w2e3+/=");
        assertThat(CacheKeyTemplate.render("node-{{ .Environment.NODE_VERSION }}-{{ .Environment.UNSET }}", VALUES))
                .isEqualTo("node-20-<no value>");
    }

    @Test
    void text_without_placeholders_is_kept_as_is() {
        assertThat(CacheKeyTemplate.render("plain-key-$1\\x", VALUES)).isEqualTo("plain-key-$1\\x");
    }

    @Test
    void an_unknown_placeholder_or_unreadable_file_is_an_error_that_names_it() {
        assertThatThrownBy(() -> CacheKeyTemplate.render("v1-{{ .Nope }}", VALUES))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'{{ .Nope }}'");
        assertThatThrownBy(() -> CacheKeyTemplate.render("{{ checksum \"yarn.lock\" }}", VALUES))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("yarn.lock");
    }

    @Test
    void arch_uses_go_names_for_the_platform() {
        assertThat(CacheKeyTemplate.arch("Linux", "amd64")).isEqualTo("linux-amd64");
        assertThat(CacheKeyTemplate.arch("Linux", "aarch64")).isEqualTo("linux-arm64");
        assertThat(CacheKeyTemplate.arch("Mac OS X", "aarch64")).isEqualTo("darwin-arm64");
    }
}
