package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkerOptionsTest {
    @Test
    void defaults_wait_thirty_seconds_on_close_and_a_wait_must_be_positive() {
        Worker.Options options = Worker.Options.named("w", 4);
        assertThat(options.closeWait()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.prefetch()).isEqualTo(12);
        assertThat(options.withCloseWait(Duration.ofSeconds(2)).closeWait()).isEqualTo(Duration.ofSeconds(2));
        // Thread.join(0) would wait for ever: a zero wait is refused rather than turned into that.
        assertThatThrownBy(() -> options.withCloseWait(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("closeWait");
        assertThatThrownBy(() -> options.withCloseWait(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
