package dev.gantry.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestPriorityTest {
    @Test
    void triggers_agents_webhooks_and_the_health_check_are_never_shed() {
        assertThat(RequestPriority.of("POST", "/api/v2/project/gh/acme/app/pipeline"))
                .isEqualTo(RequestPriority.CRITICAL);
        assertThat(RequestPriority.of("POST", "/api/v2/pipeline/continue")).isEqualTo(RequestPriority.CRITICAL);
        assertThat(RequestPriority.of("POST", "/api/agent/v1/agents/x/claim")).isEqualTo(RequestPriority.CRITICAL);
        assertThat(RequestPriority.of("POST", "/webhooks/github")).isEqualTo(RequestPriority.CRITICAL);
        assertThat(RequestPriority.of("GET", "/healthz")).isEqualTo(RequestPriority.CRITICAL);
    }

    @Test
    void changes_metrics_and_the_status_feed_come_before_reads() {
        assertThat(RequestPriority.of("POST", "/api/v2/workflow/x/cancel")).isEqualTo(RequestPriority.NORMAL);
        assertThat(RequestPriority.of("POST", "/jobs/gh/acme/app/1/cancel")).isEqualTo(RequestPriority.NORMAL);
        assertThat(RequestPriority.of("GET", "/metrics")).isEqualTo(RequestPriority.NORMAL);
        assertThat(RequestPriority.of("GET", "/status.json")).isEqualTo(RequestPriority.NORMAL);
    }

    @Test
    void status_reads_and_pages_are_shed_first() {
        assertThat(RequestPriority.of("GET", "/api/v2/project/gh/acme/app/pipeline")).isEqualTo(RequestPriority.LOW);
        assertThat(RequestPriority.of("GET", "/pipelines/gh/acme/app")).isEqualTo(RequestPriority.LOW);
    }
}
