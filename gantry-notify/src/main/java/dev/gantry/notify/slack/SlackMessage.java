package dev.gantry.notify.slack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.notify.BudgetSummary;
import dev.gantry.notify.Event;
import dev.gantry.notify.WorkflowSummary;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Slack message of an event, in Block Kit: a fallback {@code text} (notifications and screen readers), and one
 * attachment in the event's colour holding a headline section, the facts as fields and, where the UI has a page for
 * it, a button to it. A workflow's facts are project, branch, commit, who and duration, with its pipeline's page; a
 * usage budget alert's are its organization, month, threshold and credits used of the budget, with the usage page of
 * that organization and month. The colour bar needs the attachment; Slack renders the blocks inside it as top-level
 * ones.
 * Stateless.
 */
public final class SlackMessage {
    private SlackMessage() {
    }

    /** The JSON body to post to an incoming webhook for {@code event}. */
    public static byte[] render(Event event) {
        if (event.type() == Event.Type.BUDGET_ALERT) {
            BudgetSummary summary = BudgetSummary.of(event);
            return message(summary.emoji(), summary.headline(), summary.colour(), summary.facts(), summary.url(),
                    "View usage");
        }
        WorkflowSummary summary = WorkflowSummary.of(event);
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("Project", summary.project());
        facts.put("Branch", summary.ref());
        facts.put("Commit", summary.commit().isEmpty() ? "" : "`" + summary.commit() + "`");
        facts.put("Who", summary.actor());
        facts.put("Duration", summary.duration());
        return message(summary.emoji(), summary.headline(), summary.colour(), facts, summary.url(),
                "View pipeline");
    }

    /** A message of a headline, the non-empty facts in order and, with a {@code url}, a button to it. */
    private static byte[] message(String emoji, String headline, String colour, Map<String, String> facts,
                                  String url, String button) {
        ObjectNode body = Event.JSON.createObjectNode();
        body.put("text", emoji + " " + headline);
        ObjectNode attachment = body.putArray("attachments").addObject();
        attachment.put("color", colour);
        ArrayNode blocks = attachment.putArray("blocks");
        ObjectNode headlineBlock = blocks.addObject().put("type", "section");
        headlineBlock.putObject("text").put("type", "mrkdwn").put("text", emoji + " *" + headline + "*");
        ArrayNode fields = blocks.addObject().put("type", "section").putArray("fields");
        facts.forEach((label, value) -> {
            if (value != null && !value.isEmpty()) {
                fields.addObject().put("type", "mrkdwn").put("text", "*" + label + "*\n" + value);
            }
        });
        if (url != null) {
            ObjectNode element = blocks.addObject().put("type", "actions").putArray("elements").addObject();
            element.put("type", "button").put("url", url);
            element.putObject("text").put("type", "plain_text").put("text", button);
        }
        try {
            return Event.JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a Slack message did not serialise", e);
        }
    }
}
