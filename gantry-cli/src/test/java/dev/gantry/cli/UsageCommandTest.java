package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** How {@code gantry usage} prints a budget alert of the report. */
class UsageCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode alert(int pending, int delivered, int dead) throws Exception {
        return JSON.readTree("""
                {"org": "acme", "month": "2026-12", "threshold_percent": 100, "budget_credits": 50, "credits": 60,
                 "crossed_at": "2026-12-06T01:19:25.190Z",
                 "deliveries": {"pending": %d, "delivered": %d, "dead": %d}}""".formatted(pending, delivered, dead));
    }

    @Test
    void an_alert_shows_its_deliveries_by_state() throws Exception {
        assertThat(UsageCommand.alertLine(alert(1, 2, 1))).isEqualTo("budget alert: acme 2026-12 reached 100 % of 50 "
                + "credits (60) at 2026-12-06T01:19:25.190Z; deliveries: 2 delivered, 1 pending, 1 dead");
    }

    @Test
    void an_alert_no_destination_asked_for_says_it_went_to_no_one() throws Exception {
        assertThat(UsageCommand.alertLine(alert(0, 0, 0))).endsWith(
                "; sent to no one (no Slack or e-mail destination asks for budget alerts)");
    }
}
