package dev.gantry.notify.slack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.notify.Event;
import dev.gantry.notify.WorkflowSummary;

/**
 * The Slack message of a workflow event, in Block Kit: a fallback {@code text} (notifications and screen readers),
 * and one attachment in the status colour holding a headline section, the facts as fields (project, branch, commit,
 * who, duration) and a button to the UI's pipeline page. The colour bar needs the attachment; Slack renders the
 * blocks inside it as top-level ones. Stateless.
 */
public final class SlackMessage {
    private SlackMessage() {
    }

    /** The JSON body to post to an incoming webhook for {@code event}. */
    public static byte[] render(Event event) {
        WorkflowSummary summary = WorkflowSummary.of(event);
        ObjectNode body = Event.JSON.createObjectNode();
        body.put("text", summary.emoji() + " " + summary.headline());
        ObjectNode attachment = body.putArray("attachments").addObject();
        attachment.put("color", summary.colour());
        ArrayNode blocks = attachment.putArray("blocks");
        ObjectNode headline = blocks.addObject().put("type", "section");
        headline.putObject("text").put("type", "mrkdwn").put("text", summary.emoji() + " *" + summary.headline()
                + "*");
        ArrayNode fields = blocks.addObject().put("type", "section").putArray("fields");
        field(fields, "Project", summary.project());
        field(fields, "Branch", summary.ref());
        field(fields, "Commit", summary.commit().isEmpty() ? "" : "`" + summary.commit() + "`");
        field(fields, "Who", summary.actor());
        field(fields, "Duration", summary.duration());
        if (summary.url() != null) {
            ObjectNode button = blocks.addObject().put("type", "actions").putArray("elements").addObject();
            button.put("type", "button").put("url", summary.url());
            button.putObject("text").put("type", "plain_text").put("text", "View pipeline");
        }
        try {
            return Event.JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a Slack message did not serialise", e);
        }
    }

    private static void field(ArrayNode fields, String label, String value) {
        if (value != null && !value.isEmpty()) {
            fields.addObject().put("type", "mrkdwn").put("text", "*" + label + "*\n" + value);
        }
    }
}
