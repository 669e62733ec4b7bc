package dev.gantry.server.insights;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.PageToken;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The query parameters of the insights API, read as CircleCI documents them; anything else is a 400 naming the
 * parameter. Pure apart from reading the request.
 */
final class InsightsParameters {
    static final String BRANCH = "branch";
    static final String ALL_BRANCHES = "all-branches";
    static final String REPORTING_WINDOW = "reporting-window";
    static final String START_DATE = "start-date";
    static final String END_DATE = "end-date";

    /** CircleCI's reporting windows; without one, the last 90 days. */
    enum ReportingWindow {
        LAST_24_HOURS("last-24-hours", Duration.ofHours(24)),
        LAST_7_DAYS("last-7-days", Duration.ofDays(7)),
        LAST_30_DAYS("last-30-days", Duration.ofDays(30)),
        LAST_60_DAYS("last-60-days", Duration.ofDays(60)),
        LAST_90_DAYS("last-90-days", Duration.ofDays(90));

        final String word;
        final Duration length;

        ReportingWindow(String word, Duration length) {
            this.word = word;
            this.length = length;
        }

        /** @param text the parameter's value, null for the default */
        static ReportingWindow parse(String text) {
            if (text == null) {
                return LAST_90_DAYS;
            }
            return Arrays.stream(values()).filter(w -> w.word.equals(text)).findFirst()
                    .orElseThrow(() -> ApiException.invalid(REPORTING_WINDOW, "\"" + REPORTING_WINDOW + "\" is one of "
                            + Arrays.stream(values()).map(w -> w.word).collect(Collectors.joining(", "))
                            + ", not " + ApiException.quote(text)));
        }
    }

    private InsightsParameters() {
    }

    /**
     * The branch a request reads: {@code branch}, or null (every branch) for {@code all-branches=true}, or with
     * neither, {@code defaultBranch}'s (null when it is not known: every branch).
     */
    static String branch(String branch, String allBranches, Supplier<String> defaultBranch) {
        if (allBranches != null && !allBranches.equals("true") && !allBranches.equals("false")) {
            throw ApiException.invalid(ALL_BRANCHES, "\"" + ALL_BRANCHES + "\" is true or false, not "
                    + ApiException.quote(allBranches));
        }
        boolean all = "true".equals(allBranches);
        if (all && branch != null) {
            throw ApiException.invalid(ALL_BRANCHES, "use either \"" + BRANCH + "\" or \"" + ALL_BRANCHES
                    + "=true\", not both");
        }
        return all ? null : branch != null ? branch : defaultBranch.get();
    }

    static String branch(Context ctx, Supplier<String> defaultBranch) {
        return branch(text(ctx, BRANCH), text(ctx, ALL_BRANCHES), defaultBranch);
    }

    /** The scope of {@code reporting-window}, ending now. */
    static ProjectInsights.Scope window(Context ctx, UUID projectId, String branch, InstantSource clock) {
        Instant now = clock.instant();
        return new ProjectInsights.Scope(projectId, branch,
                now.minus(ReportingWindow.parse(text(ctx, REPORTING_WINDOW)).length), now);
    }

    /** The scope of {@code start-date} and {@code end-date}; by default the last 90 days. */
    static ProjectInsights.Scope dates(Context ctx, UUID projectId, String branch, InstantSource clock) {
        List<Instant> range = dates(text(ctx, START_DATE), text(ctx, END_DATE), clock.instant());
        return new ProjectInsights.Scope(projectId, branch, range.get(0), range.get(1));
    }

    /**
     * {@code [start, end)}: CircleCI's rules, an end needs a start, and is after it by at most 90 days; a start alone
     * runs to now, and neither means the last 90 days.
     */
    static List<Instant> dates(String start, String end, Instant now) {
        if (start == null) {
            if (end != null) {
                throw ApiException.invalid(END_DATE, "\"" + END_DATE + "\" needs a \"" + START_DATE + "\"");
            }
            return List.of(now.minus(ProjectInsights.HORIZON), now);
        }
        Instant from = instant(START_DATE, start);
        Instant to = end == null ? now : instant(END_DATE, end);
        if (!to.isAfter(from) || Duration.between(from, to).compareTo(ProjectInsights.HORIZON) > 0) {
            throw ApiException.invalid(END_DATE, "\"" + END_DATE + "\" must be after \"" + START_DATE
                    + "\" and at most 90 days later");
        }
        return List.of(from, to);
    }

    /** An ISO-8601 date-time with an offset ({@code 2026-12-01T00:00:00Z}), or a date, taken as its UTC midnight. */
    static Instant instant(String parameter, String text) {
        try {
            return text.length() == 10 ? LocalDate.parse(text).atStartOfDay().toInstant(ZoneOffset.UTC)
                    : OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.invalid(parameter, "\"" + parameter + "\" is a date-time such as "
                    + "2026-12-01T00:00:00Z, not " + ApiException.quote(text));
        }
    }

    /** The name a page of names (workflows, jobs) continues after, from {@code page-token}; null for the first. */
    static String nameAfter(Context ctx) {
        String text = ctx.queryParam(PageToken.PARAMETER);
        return text == null ? null : PageToken.decode(text, 1).position().getFirst();
    }

    /** The run a page of runs continues after, from {@code page-token}; null for the first page. */
    static ProjectInsights.RunPosition runAfter(Context ctx) {
        String text = ctx.queryParam(PageToken.PARAMETER);
        if (text == null) {
            return null;
        }
        List<String> position = PageToken.decode(text, 2).position();
        try {
            return new ProjectInsights.RunPosition(Instant.parse(position.get(0)), UUID.fromString(position.get(1)));
        } catch (IllegalArgumentException | DateTimeParseException notOurs) {
            throw ApiException.invalid(PageToken.PARAMETER, "\"" + PageToken.PARAMETER + "\" is not a token this "
                    + "list handed out");
        }
    }

    static String runToken(ProjectInsights.Run last) {
        return PageToken.after(last.createdAt().toString(), last.id().toString()).encode();
    }

    /** A parameter's value; null when absent or blank. */
    static String text(Context ctx, String name) {
        String value = ctx.queryParam(name);
        return value == null || value.isBlank() ? null : value;
    }
}
