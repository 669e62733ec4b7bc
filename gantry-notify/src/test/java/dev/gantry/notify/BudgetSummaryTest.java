package dev.gantry.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.notify.email.EmailChannel;
import dev.gantry.notify.email.EmailMessage;
import dev.gantry.notify.slack.SlackMessage;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What Slack and e-mail say of a usage budget alert. */
class BudgetSummaryTest {

    static Event alert(int percent, long budget, long credits) {
        return new Event(UUID.randomUUID(), Event.Type.BUDGET_ALERT, "2026-12-10T10:02:00.000Z",
                Event.Snapshot.budgetAlert(new Event.Organization(UUID.randomUUID(), "acme"),
                        new Event.Budget("2026-12", percent, budget, credits)));
    }

    @Test
    void the_warning_is_amber_and_says_the_share_used() {
        BudgetSummary warning = BudgetSummary.of(alert(80, 50, 41));
        assertThat(warning.headline()).isEqualTo("Organization acme has used 80 % of its usage budget for 2026-12");
        assertThat(warning.subject()).isEqualTo("[acme] 80 % of the usage budget used (2026-12)");
        assertThat(warning.emoji()).isEqualTo("⚠️");
        assertThat(warning.colour()).isEqualTo("#ecb22e");
        assertThat(warning.facts()).containsExactly(Map.entry("Organization", "acme"),
                Map.entry("Month", "2026-12"), Map.entry("Threshold", "80 %"),
                Map.entry("Credits used", "41 of 50 (82 %)"));
    }

    @Test
    void the_budget_used_up_is_red_and_a_total_just_short_never_reads_100_percent() {
        BudgetSummary exceeded = BudgetSummary.of(alert(100, 50, 75));
        assertThat(exceeded.headline()).isEqualTo("Organization acme has used its usage budget for 2026-12");
        assertThat(exceeded.subject()).isEqualTo("[acme] Usage budget used up (2026-12)");
        assertThat(exceeded.colour()).isEqualTo("#e01e5a");
        assertThat(exceeded.facts().get("Credits used")).isEqualTo("75 of 50 (150 %)");
        assertThat(BudgetSummary.of(alert(80, 1000, 999)).facts().get("Credits used")).isEqualTo("999 of 1000 (99 %)");
    }

    @Test
    void slack_gets_the_facts_as_fields_and_no_pipeline_button() throws Exception {
        JsonNode body = Event.JSON.readTree(SlackMessage.render(alert(80, 50, 40)));
        assertThat(body.path("text").asText()).isEqualTo("⚠️ Organization acme has used 80 % of its usage budget for "
                + "2026-12");
        JsonNode blocks = body.at("/attachments/0/blocks");
        assertThat(body.at("/attachments/0/color").asText()).isEqualTo("#ecb22e");
        assertThat(blocks).hasSize(2);
        assertThat(blocks.get(1).path("fields").findValuesAsText("text")).containsExactly("*Organization*\nacme",
                "*Month*\n2026-12", "*Threshold*\n80 %", "*Credits used*\n40 of 50 (80 %)");
    }

    @Test
    void email_gets_the_subject_and_the_facts_in_text_and_html() {
        EmailMessage message = EmailChannel.message(alert(100, 50, 50));
        assertThat(message.subject()).isEqualTo("[acme] Usage budget used up (2026-12)");
        assertThat(message.text()).isEqualTo("""
                Organization acme has used its usage budget for 2026-12

                Organization: acme
                Month: 2026-12
                Threshold: 100 %
                Credits used: 50 of 50 (100 %)
                """);
        assertThat(message.html()).contains("<th align=\"left\">Credits used</th><td>50 of 50 (100 %)</td>")
                .doesNotContain("<a href");
    }
}
