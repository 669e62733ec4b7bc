package dev.gantry.server.ui;

import dev.gantry.server.auth.Principal;
import dev.gantry.server.usage.UsageDao;
import dev.gantry.server.usage.UsageReads;
import dev.gantry.server.usage.UsageReport;
import dev.gantry.server.usage.UsageReport.Dimension;
import io.javalin.http.Context;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The usage page's model (docs/usage.md), read through the same code as {@code GET /api/v2/insights/usage}
 * ({@link UsageReads}): per organization this month's credits against its budget and whether it is charged; the
 * chosen days' credits, minutes and tasks by project and resource class, and per day as a chart; the budget alerts of
 * the months those days touch with their deliveries; and the CSV download of the API's rows.
 *
 * <p>Who sees what, as in the API: the organizations the reader is in (every one for a site admin); naming another
 * is refused (403). Thread-safe.
 */
public final class UsagePages {
    /** The table's grouping: the API's dimensions but the day. */
    static final List<Dimension> BY_PROJECT = List.of(Dimension.ORG, Dimension.PROJECT, Dimension.RESOURCE_CLASS);
    /** The width of a budget bar, in SVG user units. */
    public static final int BAR_WIDTH = 240;

    private final UsageReads usage;

    public UsagePages(UsageReads usage) {
        this.usage = usage;
    }

    /** An organization this month: its credits against its budget, as a bar. */
    public record OrgMonth(UsageDao.Standing standing) {
        /** The share of the budget used in whole percent, rounded down so that a total just short never reads 100. */
        public Long percent() {
            return standing.budgetCredits() == null ? null : standing.credits() * 100 / standing.budgetCredits();
        }

        /** The filled part of the bar: the share used, full at 100 % and over. */
        public long barWidth() {
            return percent() == null ? 0 : Math.min(100, percent()) * BAR_WIDTH / 100;
        }

        /** The bar's colour: {@code ok} below the 80 % alert, {@code warn} from it, {@code over} once used up. */
        public String level() {
            Long percent = percent();
            return percent == null || percent < 80 ? "ok" : percent < 100 ? "warn" : "over";
        }
    }

    /**
     * @param org           the organization chosen; null for all the reader's
     * @param organizations those the reader may choose from
     */
    public record UsagePage(WebUi.Chrome chrome, String org, List<String> organizations, UsageReads.Range range,
                            YearMonth month, List<OrgMonth> months, List<UsageReport.Row> rows,
                            UsageReport.Row total, SvgChart creditsPerDay, List<UsageDao.Alert> alerts) {
        /** The CSV of the chosen organization and days, as the API's {@code format=csv} writes it. */
        public String csvHref() {
            return "/usage/csv?" + (org == null ? "" : "org=" + WebUi.url(org) + "&") + "from=" + range.from()
                    + "&to=" + range.to();
        }
    }

    UsagePage page(WebUi.Chrome chrome, Principal caller, String orgParameter, String from, String to) {
        String org = organization(orgParameter);
        UsageReads.Scope scope = UsageReads.Scope.of(caller, org);
        UsageReads.Range range = usage.range(from, to);
        LocalDate today = usage.today();
        List<UsageDao.Standing> mine = usage.standings(UsageReads.Scope.of(caller, null), today);
        List<String> organizations = mine.stream().map(UsageDao.Standing::organization).toList();
        List<OrgMonth> months = (org == null ? mine : usage.standings(scope, today)).stream().map(OrgMonth::new)
                .toList();
        List<UsageDao.Line> lines = usage.lines(scope, range, null, null);
        List<UsageReport.Row> rows = UsageReport.group(lines, BY_PROJECT);
        return new UsagePage(chrome, org, organizations, range, YearMonth.from(today), months, rows,
                UsageReport.total(rows), creditsPerDay(UsageReport.group(lines, List.of(Dimension.DAY)), range),
                usage.alerts(scope, range));
    }

    /** The rows of {@code GET /api/v2/insights/usage?format=csv} with the page's organization and days. */
    void csv(Context ctx, Principal caller) {
        UsageReads.Scope scope = UsageReads.Scope.of(caller, organization(ctx.queryParam("org")));
        UsageReads.Range range = usage.range(ctx.queryParam("from"), ctx.queryParam("to"));
        List<Dimension> all = List.of(Dimension.values());
        UsageReads.respondCsv(ctx, range, all, usage.rows(scope, range, null, null, all));
        ctx.header("Cache-Control", "no-store");
    }

    /** Credits per day over every day of the range; a day without charges is 0, not a gap: nothing was charged. */
    static SvgChart creditsPerDay(List<UsageReport.Row> byDay, UsageReads.Range range) {
        Map<String, Long> credits = new HashMap<>();
        byDay.forEach(row -> credits.put(row.key(Dimension.DAY), row.credits()));
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (LocalDate day = range.from(); !day.isAfter(range.to()); day = day.plusDays(1)) {
            labels.add(day.toString());
            values.add(credits.getOrDefault(day.toString(), 0L).doubleValue());
        }
        return SvgChart.of("Credits per day", labels, List.of(new SvgChart.Series("credits", "credits", values)),
                null, SvgChart::number);
    }

    /** "2 delivered, 0 pending, 0 dead", or that no destination asked for it. */
    public static String deliveries(UsageDao.Alert alert) {
        if (alert.pending() + alert.delivered() + alert.dead() == 0) {
            return "sent to no one";
        }
        return alert.delivered() + " delivered, " + alert.pending() + " pending, " + alert.dead() + " dead";
    }

    /** {@code 2026-12}: an alert's month. */
    public static String month(UsageDao.Alert alert) {
        return YearMonth.from(alert.month()).toString();
    }

    private static String organization(String parameter) {
        return Optional.ofNullable(parameter).map(String::strip).filter(o -> !o.isEmpty()).orElse(null);
    }
}
