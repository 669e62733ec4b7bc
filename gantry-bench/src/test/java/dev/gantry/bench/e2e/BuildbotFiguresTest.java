package dev.gantry.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class BuildbotFiguresTest {

    @Test
    void parses_the_driver_s_json_line() throws IOException {
        BuildbotFigures f = BuildbotFigures.parse("{\"p50_start_ms\": 151.2, \"p95_start_ms\": 240.0, "
                + "\"builds_per_min\": 123.0, \"builds\": 41, \"window_s\": 20, \"method\": \"m\", "
                + "\"latency_n\": 15, \"max_start_ms\": 300.5, \"p50_start_ms_master\": 149.0, "
                + "\"p95_start_ms_master\": null, \"min_pending\": 9, \"master_cpu_pct\": 87, \"workers_cpu_pct\": 30, "
                + "\"cpu_ms_per_build\": 260, \"workers\": 4, \"buildbot\": \"3.7.0-2\"}");

        assertThat(f).isEqualTo(new BuildbotFigures(151.2, 240.0, 123.0, 41, 20, "m", 15, 300.5, 149.0, Double.NaN,
                9, 87, 30, 260.0, 4, "3.7.0-2"));
    }

    @Test
    void a_result_without_one_of_the_five_figures_is_an_error_that_shows_the_line() {
        assertThatThrownBy(() -> BuildbotFigures.parse("{\"p50_start_ms\": 1, \"p95_start_ms\": 2, \"builds\": 3, "
                + "\"window_s\": 20}"))
                .isInstanceOf(IOException.class).hasMessageContaining("builds_per_min")
                .hasMessageContaining("\"builds\": 3");
    }

    @Test
    void the_driver_and_its_master_config_are_in_the_jar() throws IOException {
        for (String name : new String[] {"buildbot_peer.py", "master.cfg"}) {
            try (InputStream in = BuildbotPeer.class.getResourceAsStream("/bench/buildbot/" + name)) {
                assertThat(in).as(name).isNotNull();
            }
        }
    }
}
