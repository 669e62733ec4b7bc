package dev.gantry.server.usage;

import dev.gantry.server.auth.Principal;
import dev.gantry.server.http.ApiException;
import io.javalin.http.Context;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/**
 * The reads of a usage report, shared by the API ({@link UsageRoutes}) and the web UI's usage page, so that both
 * read the same range, the same organizations and the same rows: the days asked for, whose organizations a reader
 * sees, the ledger's lines grouped ({@link UsageReport}), the organizations' months with their budgets, the budget
 * alerts with their deliveries, and the CSV. Thread-safe.
 */
public final class UsageReads {
    /** The longest range one report covers. */
    public static final int MAX_DAYS = 366;

    private final Jdbi jdbi;
    private final InstantSource clock;

    public UsageReads(Jdbi jdbi, InstantSource clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** UTC days from {@code from} to {@code to}, both included. */
    public record Range(LocalDate from, LocalDate to) {
    }

    /**
     * The organizations a report covers: the one {@code organization} names, or else those the caller is in
     * ({@code organizations}; every one with {@code everyOrganization}, a site admin's).
     */
    public record Scope(boolean everyOrganization, String[] organizations, String organization) {
        /**
         * The caller's organizations, or only {@code organization} (null: all of them).
         *
         * @throws ApiException 403 when the caller has no role in {@code organization}
         */
        public static Scope of(Principal caller, String organization) {
            if (organization != null && caller.roleIn(organization).isEmpty()) {
                throw ApiException.forbidden(caller.login() + " is not a member of organization " + organization
                        + "; its usage needs a viewer or more");
            }
            return new Scope(caller.siteAdmin(), caller.roles().keySet().toArray(String[]::new), organization);
        }
    }

    /** Today, the UTC day. */
    public LocalDate today() {
        return LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    }

    /**
     * The days the query parameters {@code from} and {@code to} name (YYYY-MM-DD, each optional: this UTC month so
     * far).
     *
     * @throws ApiException 400 for a text that is no day, or a range that ends before it starts or spans more than
     *                      {@link #MAX_DAYS}
     */
    public Range range(String fromText, String toText) {
        LocalDate today = today();
        LocalDate from = day("from", fromText).orElse(today.withDayOfMonth(1));
        LocalDate to = day("to", toText).orElse(today);
        if (to.isBefore(from) || ChronoUnit.DAYS.between(from, to) >= MAX_DAYS) {
            throw ApiException.invalid("to", "\"to\" must be on or after \"from\" and at most " + MAX_DAYS
                    + " days later, got " + from + " to " + to);
        }
        return new Range(from, to);
    }

    /** The ledger's lines of the range summed per {@code groupBy}, optionally of one project or class only. */
    public List<UsageReport.Row> rows(Scope scope, Range range, String project, String resourceClass,
                                      List<UsageReport.Dimension> groupBy) {
        return UsageReport.group(lines(scope, range, project, resourceClass), groupBy);
    }

    /**
     * The ledger's lines of the range, per organization, project, class and day, optionally of one project or class
     * only: one read that {@link UsageReport#group} can sum several ways.
     */
    public List<UsageDao.Line> lines(Scope scope, Range range, String project, String resourceClass) {
        return jdbi.withExtension(UsageDao.class, dao -> dao.lines(range.from(), range.to(),
                scope.everyOrganization(), scope.organizations(), scope.organization(), project, resourceClass));
    }

    /** The organizations' months that the range touches, with their credits and budgets. */
    public List<UsageDao.Month> months(Scope scope, Range range) {
        return jdbi.withExtension(UsageDao.class, dao -> dao.months(range.from(), range.to(),
                scope.everyOrganization(), scope.organizations(), scope.organization()));
    }

    /** The budget alerts of the months the range touches, each with its deliveries' states. */
    public List<UsageDao.Alert> alerts(Scope scope, Range range) {
        return jdbi.withExtension(UsageDao.class, dao -> dao.alerts(range.from(), range.to(),
                scope.everyOrganization(), scope.organizations(), scope.organization()));
    }

    /** Each organization of the scope in the UTC month of {@code day}: its credits, budget, and whether charged. */
    public List<UsageDao.Standing> standings(Scope scope, LocalDate day) {
        return jdbi.withExtension(UsageDao.class, dao -> dao.standings(day.withDayOfMonth(1),
                scope.everyOrganization(), scope.organizations(), scope.organization()));
    }

    /** Answers with {@code rows} as CSV (RFC 4180), a download named after the range. */
    public static void respondCsv(Context ctx, Range range, List<UsageReport.Dimension> groupBy,
                                  List<UsageReport.Row> rows) {
        ctx.status(200).contentType("text/csv; charset=utf-8")
                .header("Content-Disposition", "attachment; filename=\"usage-" + range.from() + "-" + range.to()
                        + ".csv\"")
                .result(UsageReport.csv(groupBy, rows));
    }

    /** The day {@code text} names, if it names one; empty for none. */
    static Optional<LocalDate> day(String field, String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDate.parse(text.strip()));
        } catch (DateTimeParseException e) {
            throw ApiException.invalid(field, "\"" + field + "\" must be a day, YYYY-MM-DD, got "
                    + ApiException.quote(text));
        }
    }
}
