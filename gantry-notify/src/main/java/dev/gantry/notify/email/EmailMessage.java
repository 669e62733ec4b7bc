package dev.gantry.notify.email;

import dev.gantry.notify.BudgetSummary;
import dev.gantry.notify.WorkflowSummary;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An e-mail's subject and bodies: plain text for every client, and HTML with the same facts for those that show it.
 * Values are escaped in the HTML. Immutable.
 */
public record EmailMessage(String subject, String text, String html) {

    /** The message for a workflow event. */
    public static EmailMessage of(WorkflowSummary summary) {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("Project", summary.project());
        facts.put("Workflow", summary.workflow());
        facts.put("Status", summary.status());
        facts.put("Branch", summary.ref());
        facts.put("Commit", summary.commit());
        facts.put("Who", summary.actor());
        facts.put("Duration", summary.duration());
        String subject = "[" + summary.project() + "] " + summary.headline().replace(" in " + summary.project(), "")
                + (summary.ref().isEmpty() ? "" : " (" + summary.ref() + ")");
        return of(subject, summary.headline(), facts, summary.url(), summary.colour());
    }

    /** The message for a usage budget alert, with a link to the usage page when the alert has one. */
    public static EmailMessage of(BudgetSummary summary) {
        return of(summary.subject(), summary.headline(), summary.facts(), summary.url(), summary.colour());
    }

    /** A message with a headline, facts in order (empty ones left out) and an optional link. */
    public static EmailMessage of(String subject, String headline, Map<String, String> facts, String url,
                                  String colour) {
        StringBuilder text = new StringBuilder(headline).append("\n\n");
        StringBuilder html = new StringBuilder("<html><body><h2 style=\"border-left: 6px solid ").append(colour)
                .append("; padding-left: 8px\">").append(escape(headline)).append("</h2>\n<table>\n");
        facts.forEach((label, value) -> {
            if (value != null && !value.isEmpty()) {
                text.append(label).append(": ").append(value).append('\n');
                html.append("<tr><th align=\"left\">").append(escape(label)).append("</th><td>").append(escape(value))
                        .append("</td></tr>\n");
            }
        });
        html.append("</table>\n");
        if (url != null) {
            text.append("\n").append(url).append('\n');
            html.append("<p><a href=\"").append(escape(url)).append("\">View in Gantry</a></p>\n");
        }
        html.append("</body></html>\n");
        return new EmailMessage(subject, text.toString(), html.toString());
    }

    static String escape(String value) {
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
