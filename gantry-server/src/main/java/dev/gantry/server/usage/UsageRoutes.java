package dev.gantry.server.usage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.auth.Access;
import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.auth.Principal;
import dev.gantry.server.auth.Role;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import io.javalin.http.Context;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ledger's routes (docs/usage.md):
 * <ul>
 *   <li>{@code GET /api/v2/insights/usage}: credits, minutes and seconds per organization, project, resource class
 *       and day, for the organizations the caller is in (all for a site admin), as JSON or CSV, with the months'
 *       budgets and the alerts they recorded, each with its deliveries' states;</li>
 *   <li>{@code GET /api/v2/organization/{org}/usage-settings}, {@code PUT …/usage-budget}: an organization's
 *       settings, and its monthly budget, which its admins set;</li>
 *   <li>{@code PUT /api/v2/admin/organization/{org}/charging} and {@code POST /api/v2/admin/usage/backfill}: the
 *       operator's switch and the backfill.</li>
 * </ul>
 * Thread-safe.
 */
public final class UsageRoutes {
    private final UsageLedger ledger;
    private final UsageReads reads;

    public UsageRoutes(UsageLedger ledger, UsageReads reads) {
        this.ledger = ledger;
        this.reads = reads;
    }

    /**
     * {@code GET /api/v2/insights/usage?org=&project=&resource-class=&from=&to=&group-by=&format=}: days from
     * {@code from} to {@code to} inclusive (default: this UTC month so far), grouped by any of {@code org},
     * {@code project}, {@code resource_class}, {@code day} (default all four); CSV with {@code format=csv} or
     * {@code Accept: text/csv}. Naming an organization needs a role in it; without one the report covers the
     * caller's organizations.
     */
    public void report(Context ctx) {
        Principal caller = ApiAuthentication.principal(ctx);
        Optional<String> organization = query(ctx, "org");
        organization.ifPresent(org -> Access.require(ctx, org, Role.VIEWER));
        UsageReads.Scope scope = UsageReads.Scope.of(caller, organization.orElse(null));
        UsageReads.Range range = reads.range(ctx.queryParam("from"), ctx.queryParam("to"));
        List<UsageReport.Dimension> groupBy = groupBy(ctx);
        List<UsageReport.Row> rows = reads.rows(scope, range, query(ctx, "project").orElse(null),
                query(ctx, "resource-class").orElse(null), groupBy);
        if ("csv".equals(ctx.queryParam("format")) || (ctx.queryParam("format") == null
                && Optional.ofNullable(ctx.header("Accept")).orElse("").contains("text/csv"))) {
            UsageReads.respondCsv(ctx, range, groupBy, rows);
            return;
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("from", range.from().toString());
        answer.put("to", range.to().toString());
        answer.put("group_by", groupBy.stream().map(d -> d.word).toList());
        answer.put("items", rows.stream().map(UsageReport.Row::json).toList());
        answer.put("total", UsageReport.total(rows).json());
        answer.put("months", reads.months(scope, range).stream().map(UsageRoutes::json).toList());
        answer.put("budget_alerts", reads.alerts(scope, range).stream().map(UsageRoutes::json).toList());
        Json.respond(ctx, 200, answer);
    }

    /** {@code GET /api/v2/organization/{org}/usage-settings}. */
    public void settings(Context ctx) {
        Json.respond(ctx, 200, json(ledger.settings(ctx.pathParam("org"))));
    }

    /** {@code PUT /api/v2/organization/{org}/usage-budget} {@code {"monthly_credits": N}} (null removes it). */
    public void putBudget(Context ctx) {
        JsonNode credits = JsonBody.readObject(ctx).get("monthly_credits");
        if (credits == null || !(credits.isNull() || credits.canConvertToLong() && credits.isIntegralNumber()
                && credits.asLong() > 0)) {
            throw ApiException.invalid("monthly_credits", "\"monthly_credits\" must be a whole number of credits "
                    + "above 0, or null to remove the budget");
        }
        Json.respond(ctx, 200, json(ledger.setBudget(ctx.pathParam("org"), credits.isNull() ? null
                : credits.asLong(), ApiAuthentication.principal(ctx).login())));
    }

    /** {@code PUT /api/v2/admin/organization/{org}/charging} {@code {"enabled": false}}. */
    public void putCharging(Context ctx) {
        JsonNode enabled = JsonBody.readObject(ctx).get("enabled");
        if (enabled == null || !enabled.isBoolean()) {
            throw ApiException.invalid("enabled", "\"enabled\" must be true or false");
        }
        Json.respond(ctx, 200, json(ledger.setCharging(ctx.pathParam("org"), enabled.booleanValue(),
                ApiAuthentication.principal(ctx).login())));
    }

    /** {@code POST /api/v2/admin/usage/backfill} {@code {"org": "acme", "from": "2026-01-01", "to": "2026-01-31"}}. */
    public void backfill(Context ctx) {
        ObjectNode body = JsonBody.readObject(ctx);
        Optional<String> organization = Optional.ofNullable(body.get("org")).filter(o -> !o.isNull())
                .map(o -> {
                    if (!o.isTextual() || o.asText().isBlank()) {
                        throw ApiException.invalid("org", "\"org\" must be an organization's name, or absent for "
                                + "every organization");
                    }
                    return o.asText();
                });
        LocalDate from = UsageReads.day("from", body.path("from").isTextual() ? body.get("from").asText() : null)
                .orElseThrow(() -> ApiException.invalid("from", "\"from\" is required: the first day, YYYY-MM-DD"));
        LocalDate to = UsageReads.day("to", body.path("to").isTextual() ? body.get("to").asText() : null)
                .orElseThrow(() -> ApiException.invalid("to", "\"to\" is required: the last day, YYYY-MM-DD"));
        if (to.isBefore(from)) {
            throw ApiException.invalid("to", "\"to\" must be on or after \"from\"");
        }
        UsageLedger.Backfilled done = ledger.backfill(organization, from, to);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("org", organization.orElse(null));
        answer.put("from", from.toString());
        answer.put("to", to.toString());
        answer.put("examined", done.examined());
        answer.put("charged", done.charged());
        Json.respond(ctx, 200, answer);
    }

    private static List<UsageReport.Dimension> groupBy(Context ctx) {
        Optional<String> words = query(ctx, "group-by");
        if (words.isEmpty()) {
            return List.of(UsageReport.Dimension.values());
        }
        List<UsageReport.Dimension> groupBy = new ArrayList<>();
        for (String word : words.get().split(",")) {
            groupBy.add(UsageReport.Dimension.ofWord(word).orElseThrow(() -> ApiException.invalid("group-by",
                    "\"group-by\" is a comma-separated list of org, project, resource_class and day, got "
                            + ApiException.quote(word))));
        }
        return groupBy;
    }

    private static Optional<String> query(Context ctx, String name) {
        return Optional.ofNullable(ctx.queryParam(name)).map(String::strip).filter(v -> !v.isEmpty());
    }

    private static Map<String, Object> json(UsageLedger.Settings settings) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("org", settings.organization());
        json.put("charging", settings.charging());
        json.put("monthly_budget_credits", settings.monthlyBudgetCredits());
        return json;
    }

    private static Map<String, Object> json(UsageDao.Month month) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("org", month.organization());
        json.put("month", month.month().toString().substring(0, 7));
        json.put("credits", month.credits());
        json.put("monthly_budget_credits", month.budgetCredits());
        return json;
    }

    private static Map<String, Object> json(UsageDao.Alert alert) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("org", alert.organization());
        json.put("month", alert.month().toString().substring(0, 7));
        json.put("threshold_percent", alert.thresholdPercent());
        json.put("budget_credits", alert.budgetCredits());
        json.put("credits", alert.credits());
        json.put("crossed_at", Json.time(alert.crossedAt()));
        // Counts of its deliveries by state; all zero when no destination asked for budget alerts.
        Map<String, Object> deliveries = new LinkedHashMap<>();
        deliveries.put("pending", alert.pending());
        deliveries.put("delivered", alert.delivered());
        deliveries.put("dead", alert.dead());
        json.put("deliveries", deliveries);
        return json;
    }
}
