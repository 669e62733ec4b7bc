package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QueueSettingsTest {
    @Test
    void settings_name_the_rule_they_break() {
        assertThatThrownBy(() -> QueueSettings.defaults().withLease(Duration.ZERO))
                .hasMessageContaining("lease must be a positive duration");
        assertThatThrownBy(() -> QueueSettings.defaults().withRetry(Duration.ofMinutes(5), Duration.ofSeconds(1)))
                .hasMessageContaining("retryCap");
    }
}
