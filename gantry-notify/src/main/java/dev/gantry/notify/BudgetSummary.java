package dev.gantry.notify;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a person is told of an organization's usage budget alert, whatever the medium (Slack, e-mail): a headline with
 * an emoji, a colour (amber for the warning, red once the budget is used up), the facts in order, and the web UI's
 * usage page of the organization and month ({@code url}; null for an alert recorded before there was one). Pure,
 * immutable.
 */
public record BudgetSummary(String subject, String headline, String emoji, String colour, Map<String, String> facts,
                            String url) {

    /** The summary of {@code event}, a budget alert. */
    public static BudgetSummary of(Event event) {
        String organization = event.snapshot().organization().name();
        Event.Budget b = event.snapshot().budget();
        boolean exceeded = b.thresholdPercent() >= 100;
        String subject = "[" + organization + "] " + (exceeded ? "Usage budget used up"
                : b.thresholdPercent() + " % of the usage budget used") + " (" + b.month() + ")";
        String headline = exceeded
                ? "Organization " + organization + " has used its usage budget for " + b.month()
                : "Organization " + organization + " has used " + b.thresholdPercent() + " % of its usage budget for "
                        + b.month();
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("Organization", organization);
        facts.put("Month", b.month());
        facts.put("Threshold", b.thresholdPercent() + " %");
        // Whole percent rounded down, so a total just short of the budget never reads 100 %.
        facts.put("Credits used", b.credits() + " of " + b.budgetCredits() + " ("
                + b.credits() * 100 / b.budgetCredits() + " %)");
        return new BudgetSummary(subject, headline, exceeded ? "🛑" : "⚠️", exceeded ? "#e01e5a" : "#ecb22e", facts,
                b.url());
    }
}
