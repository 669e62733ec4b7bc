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

    static final String USAGE = "https://ci.example/usage?org=acme&from=2026-12-01&to=2026-12-31";

    static Event alert(int percent, long budget, long credits) {
        return alert(new Event.Budget("2026-12", percent, budget, credits, USAGE));
    }

    static Event alert(Event.Budget budget) {
        return new Event(UUID.randomUUID(), Event.Type.BUDGET_ALERT, "2026-12-10T10:02:00.000Z",
                Event.Snapshot.budgetAlert(new Event.Organization(UUID.randomUUID(), "acme"), budget));
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
    void slack_gets_the_facts_as_fields_and_a_button_to_the_usage_page() throws Exception {
        JsonNode body = Event.JSON.readTree(SlackMessage.render(alert(80, 50, 40)));
        assertThat(body.path("text").asText()).isEqualTo("⚠️ Organization acme has used 80 % of its usage budget for "
                + "2026-12");
        JsonNode blocks = body.at("/attachments/0/blocks");
        assertThat(body.at("/attachments/0/color").asText()).isEqualTo("#ecb22e");
        assertThat(blocks).hasSize(3);
        assertThat(blocks.get(1).path("fields").findValuesAsText("text")).containsExactly("*Organization*\nacme",
                "*Month*\n2026-12", "*Threshold*\n80 %", "*Credits used*\n40 of 50 (80 %)");
        JsonNode button = blocks.get(2).path("elements").get(0);
        assertThat(button.path("type").asText()).isEqualTo("button");
        assertThat(button.path("url").asText()).isEqualTo(USAGE);
        assertThat(button.at("/text/text").asText()).isEqualTo("View usage");
    }

    @Test
    void an_alert_recorded_before_the_usage_page_has_no_button_and_no_link() throws Exception {
        Event.Budget old = Event.snapshotOf("{\"organization\": {\"name\": \"acme\"}, \"budget\": {\"month\": "
                + "\"2026-11\", \"threshold_percent\": 80, \"budget_credits\": 50, \"credits\": 40}}").budget();
        assertThat(old.url()).isNull();
        assertThat(Event.JSON.readTree(SlackMessage.render(alert(old))).at("/attachments/0/blocks")).hasSize(2);
        assertThat(EmailChannel.message(alert(old)).html()).doesNotContain("<a href");
    }

    @Test
    void email_gets_the_subject_the_facts_and_the_usage_link_in_text_and_html() {
        EmailMessage message = EmailChannel.message(alert(100, 50, 50));
        assertThat(message.subject()).isEqualTo("[acme] Usage budget used up (2026-12)");
        assertThat(message.text()).isEqualTo("""
                Organization acme has used its usage budget for 2026-12

                Organization: acme
                Month: 2026-12
                Threshold: 100 %
                Credits used: 50 of 50 (100 %)

                https://ci.example/usage?org=acme&from=2026-12-01&to=2026-12-31
                """);
        assertThat(message.html()).contains("<th align=\"left\">Credits used</th><td>50 of 50 (100 %)</td>")
                .contains("<a href=\"https://ci.example/usage?org=acme&amp;from=2026-12-01&amp;to=2026-12-31\">");
    }
}
