package dev.gantry.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What browser tests find before any browser starts, and that the Java side agrees with bin/lib/browser.sh. */
class BrowserSetupTest {
    @Test
    void chromium_is_debians_unless_the_environment_names_another() {
        assertThat(Browser.chromiumFromEnvironment(Map.of())).isEqualTo(Path.of("/usr/bin/chromium"));
        assertThat(Browser.chromiumFromEnvironment(Map.of("GANTRY_CHROMIUM", "/opt/chromium/chrome")))
                .isEqualTo(Path.of("/opt/chromium/chrome"));
    }

    @Test
    void a_missing_chromium_fails_saying_to_run_bin_test() {
        assertThatThrownBy(() -> Browser.launch(Path.of("/nonexistent/chromium")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no Chromium at /nonexistent/chromium")
                .hasMessageContaining("run bin/test");
    }

    @Test
    void a_missing_axe_script_fails_saying_to_run_bin_test() {
        assertThatThrownBy(() -> Accessibility.load(Path.of("/nonexistent/axe.min.js")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no axe-core at /nonexistent/axe.min.js")
                .hasMessageContaining("run bin/test");
    }

    @Test
    void the_axe_version_is_the_one_bin_test_fetches() throws IOException {
        // Failsafe and surefire run in the module's directory.
        String script = Files.readString(Path.of("..", "bin", "lib", "browser.sh"));

        assertThat(script).containsOnlyOnce("GANTRY_AXE_VERSION=" + Accessibility.AXE_VERSION + "\n");
        assertThat(Accessibility.defaultAxeScript().toString())
                .endsWith("/.cache/gantry/axe-core-" + Accessibility.AXE_VERSION + "/axe.min.js");
    }
}
