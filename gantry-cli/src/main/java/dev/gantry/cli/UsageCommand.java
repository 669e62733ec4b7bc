package dev.gantry.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gantry usage}: the usage ledger of a running server (docs/usage.md). On its own it prints credits, minutes
 * and seconds per organization, project, resource class and day as a table (or the server's CSV with
 * {@code --csv}), then the months' budgets and the alerts they recorded with their deliveries' states;
 * {@code backfill}, {@code charging} and {@code budget} change it. Each exits 0 when done, 1 when the server
 * refused, 2 when it could not ask.
 */
@Command(name = "usage", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Print the credits each organization, project, resource class and day used; backfill, switch "
                + "charging and set budgets.",
        subcommands = {UsageCommand.Backfill.class, UsageCommand.Charging.class, UsageCommand.Budget.class})
final class UsageCommand extends ServerCall {
    @Option(names = "--org", paramLabel = "ORG", description = "Only this organization (default: all of yours).")
    String organization;

    @Option(names = "--project", paramLabel = "NAME", description = "Only projects of this name.")
    String project;

    @Option(names = "--resource-class", paramLabel = "CLASS", description = "Only this resource class.")
    String resourceClass;

    @Option(names = "--from", paramLabel = "YYYY-MM-DD", description = "First day, UTC (default: the month's first).")
    String from;

    @Option(names = "--to", paramLabel = "YYYY-MM-DD", description = "Last day, UTC (default: today).")
    String to;

    @Option(names = "--group-by", paramLabel = "LIST",
            description = "Any of org, project, resource_class, day, comma-separated (default: all four).")
    String groupBy;

    @Option(names = "--csv", description = "Print CSV, as GET /api/v2/insights/usage?format=csv answers it.")
    boolean csv;

    @Override
    int call(GantryClient client, PrintWriter out) {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("org", organization);
        query.put("project", project);
        query.put("resource-class", resourceClass);
        query.put("from", from);
        query.put("to", to);
        query.put("group-by", groupBy);
        StringBuilder path = new StringBuilder("/api/v2/insights/usage");
        query.forEach((name, value) -> {
            if (value != null) {
                path.append(path.indexOf("?") < 0 ? '?' : '&').append(name).append('=')
                        .append(GantryClient.encode(value));
            }
        });
        if (csv) {
            out.print(client.getText(path.append(path.indexOf("?") < 0 ? '?' : '&').append("format=csv")
                    .toString()));
            return 0;
        }
        GantryClient.Answer answer = client.get(path.toString());
        if (!answer.ok()) {
            return fail(1, answer.message());
        }
        print(answer.json(), out);
        return 0;
    }

    private static void print(JsonNode report, PrintWriter out) {
        List<String> columns = new ArrayList<>();
        report.path("group_by").forEach(c -> columns.add(c.asText()));
        List<List<String>> lines = new ArrayList<>();
        List<String> header = new ArrayList<>(columns.stream().map(c -> c.toUpperCase().replace('_', ' ')).toList());
        header.addAll(List.of("TASKS", "MINUTES", "CREDITS", "SECONDS"));
        lines.add(header);
        for (JsonNode item : report.path("items")) {
            lines.add(line(columns, item));
        }
        List<String> total = new ArrayList<>(columns.stream().map(c -> "").toList());
        if (!total.isEmpty()) {
            total.set(0, "total");
        }
        total.addAll(line(List.of(), report.path("total")));
        lines.add(total);
        int[] widths = new int[header.size()];
        lines.forEach(l -> {
            for (int i = 0; i < l.size(); i++) {
                widths[i] = Math.max(widths[i], l.get(i).length());
            }
        });
        out.println("Usage from " + report.path("from").asText() + " to " + report.path("to").asText() + " (UTC)");
        for (List<String> l : lines) {
            StringBuilder row = new StringBuilder();
            for (int i = 0; i < l.size(); i++) {
                String format = i < columns.size() ? "%-" + widths[i] + "s" : "%" + widths[i] + "s";
                row.append(i == 0 ? "" : "  ").append(String.format(format, l.get(i)));
            }
            out.println(row.toString().stripTrailing());
        }
        for (JsonNode month : report.path("months")) {
            out.printf("%s %s: %d credits%s%n", month.path("org").asText(), month.path("month").asText(),
                    month.path("credits").asLong(), month.path("monthly_budget_credits").isNull() ? ""
                            : " of a budget of " + month.path("monthly_budget_credits").asLong());
        }
        for (JsonNode alert : report.path("budget_alerts")) {
            out.println(alertLine(alert));
        }
    }

    /** A budget alert of the report, with what became of its deliveries. */
    static String alertLine(JsonNode alert) {
        JsonNode deliveries = alert.path("deliveries");
        long pending = deliveries.path("pending").asLong();
        long delivered = deliveries.path("delivered").asLong();
        long dead = deliveries.path("dead").asLong();
        return "budget alert: %s %s reached %d %% of %d credits (%d) at %s; %s".formatted(alert.path("org").asText(),
                alert.path("month").asText(), alert.path("threshold_percent").asInt(),
                alert.path("budget_credits").asLong(), alert.path("credits").asLong(),
                alert.path("crossed_at").asText(), pending + delivered + dead == 0
                        ? "sent to no one (no Slack or e-mail destination asks for budget alerts)"
                        : "deliveries: %d delivered, %d pending, %d dead".formatted(delivered, pending, dead));
    }

    private static List<String> line(List<String> columns, JsonNode item) {
        List<String> line = new ArrayList<>();
        columns.forEach(c -> line.add(item.path(c).asText()));
        line.add(item.path("tasks").asText());
        line.add(item.path("minutes").asText());
        line.add(item.path("credits").asText());
        line.add(String.format(java.util.Locale.ROOT, "%.1f", item.path("seconds").asDouble()));
        return line;
    }

    @Command(name = "backfill", mixinStandardHelpOptions = true,
            description = "Charge, by the live rule, the tasks that ended on the days FROM to TO (UTC) and have no "
                    + "charge yet, e.g. while an organization's charging was off. Running it again charges nothing "
                    + "twice. Needs a site admin.")
    static final class Backfill extends UserCommand.Call {
        @Option(names = "--org", paramLabel = "ORG", description = "Only this organization (default: every one).")
        String organization;

        @Option(names = "--from", paramLabel = "YYYY-MM-DD", required = true, description = "First day, UTC.")
        String from;

        @Option(names = "--to", paramLabel = "YYYY-MM-DD", required = true, description = "Last day, UTC.")
        String to;

        @Override
        GantryClient.Answer send(GantryClient client) {
            Map<String, Object> body = new LinkedHashMap<>();
            if (organization != null) {
                body.put("org", organization);
            }
            body.put("from", from);
            body.put("to", to);
            return client.post("/api/v2/admin/usage/backfill", body);
        }

        @Override
        String say(JsonNode answer) {
            return "charged " + answer.path("charged").asInt() + " of " + answer.path("examined").asInt()
                    + " uncharged tasks that ended from " + answer.path("from").asText() + " to "
                    + answer.path("to").asText();
        }
    }

    @Command(name = "charging", mixinStandardHelpOptions = true,
            description = "Switch charging tasks as they end on or off for organization ORG. Needs a site admin.")
    static final class Charging extends UserCommand.Call {
        @Parameters(index = "0", paramLabel = "ORG")
        String organization;

        @Parameters(index = "1", paramLabel = "on|off")
        String state;

        @Override
        GantryClient.Answer send(GantryClient client) {
            if (!state.equals("on") && !state.equals("off")) {
                throw new GantryClientException("the second argument is on or off, got '" + state + "'");
            }
            return client.put("/api/v2/admin/organization/" + GantryClient.encode(organization) + "/charging",
                    "{\"enabled\": " + state.equals("on") + "}", "application/json");
        }

        @Override
        String say(JsonNode answer) {
            return "charging of " + answer.path("org").asText() + " is "
                    + (answer.path("charging").asBoolean() ? "on" : "off");
        }
    }

    @Command(name = "budget", mixinStandardHelpOptions = true,
            description = "Set organization ORG's monthly budget in credits (none removes it); alerts are recorded "
                    + "at 80 % and 100 %. Needs an admin of ORG.")
    static final class Budget extends UserCommand.Call {
        @Parameters(index = "0", paramLabel = "ORG")
        String organization;

        @Parameters(index = "1", paramLabel = "CREDITS|none")
        String credits;

        @Override
        GantryClient.Answer send(GantryClient client) {
            if (!credits.equals("none") && !credits.matches("[1-9][0-9]{0,17}")) {
                throw new GantryClientException("CREDITS is a whole number above 0, or none; got '" + credits + "'");
            }
            return client.put("/api/v2/organization/" + GantryClient.encode(organization) + "/usage-budget",
                    "{\"monthly_credits\": " + (credits.equals("none") ? "null" : credits) + "}", "application/json");
        }

        @Override
        String say(JsonNode answer) {
            return answer.path("org").asText() + ": " + (answer.path("monthly_budget_credits").isNull()
                    ? "no monthly budget" : "a monthly budget of " + answer.path("monthly_budget_credits").asLong()
                    + " credits");
        }
    }
}
