package dev.gantry.server.usage;

import dev.gantry.notify.Event;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.notify.EventOutbox;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the ledger: a task's end calls {@link #charge} in the transaction that ends it, and {@link #backfill}
 * charges later, by the same rule ({@link UsageRule}), what ended while an organization's charging was off. A task
 * attempt is charged at most once (the ledger's primary key), so a repeated or late completion, a retried
 * transaction or a backfill over tasks charged already change nothing. Each charge adds its credits to the
 * organization's month and records the budget thresholds it crosses ({@link BudgetThresholds}), in its own
 * transaction, with the notify event that delivers each new alert ({@link EventOutbox#budgetAlert}). Thread-safe.
 */
public final class UsageLedger {
    private static final Logger LOG = LoggerFactory.getLogger(UsageLedger.class);
    /** Tasks one backfill transaction charges. */
    static final int BACKFILL_BATCH = 500;
    private static final UUID NO_JOB = new UUID(0, 0);

    private final Jdbi jdbi;
    private final ResourceClasses classes;
    private final InstantSource clock;

    /**
     * @param jdbi    where backfills and settings run; charges run in their caller's transaction
     * @param classes the fleet file's resource classes, whose credits per minute the charges use
     */
    public UsageLedger(Jdbi jdbi, ResourceClasses classes, InstantSource clock) {
        this.jdbi = jdbi;
        this.classes = classes;
        this.clock = clock;
    }

    /**
     * Charges the task attempt {@code jobId}/{@code nodeIndex}, which ended in {@code h}'s transaction, unless its
     * organization's charging is off, the rule charges nothing for it, or it is charged already. Call it after every
     * end of a task, and let the rule decide.
     *
     * @return whether it wrote a charge
     */
    public boolean charge(Handle h, UUID jobId, int nodeIndex) {
        return write(h, jobId, nodeIndex, false);
    }

    private boolean write(Handle h, UUID jobId, int nodeIndex, boolean backfill) {
        UsageDao ledger = h.attach(UsageDao.class);
        Optional<TaskRecord> task = ledger.task(jobId, nodeIndex);
        if (task.isEmpty() || !backfill && !ledger.charging(task.get().organization())) {
            return false;
        }
        Optional<Charge> charge = UsageRule.charge(task.get(), classes);
        if (charge.isEmpty()) {
            return false;
        }
        Charge c = charge.get();
        OffsetDateTime now = now();
        if (ledger.insert(c, utc(c.startedAt()), utc(c.endedAt()), now, backfill) == 0) {
            return false;
        }
        if (classes.find(c.resourceClass()).isEmpty()) {
            LOG.warn("Charged task {}/{} 0 credits per minute: resource class '{}' is not in the fleet file's "
                    + "classes ({})", jobId, nodeIndex, c.resourceClass(), classes.known());
        }
        if (c.credits() > 0) {
            LocalDate month = c.day().withDayOfMonth(1);
            long after = ledger.addToMonth(c.organization(), month, c.credits());
            // Read after the month's lock is held: a budget set meanwhile is seen here or sees this charge.
            ledger.budget(c.organization()).ifPresent(budget -> BudgetThresholds.crossed(budget,
                    after - c.credits(), after).forEach(percent -> recordAlert(h, c.organization(), month, percent,
                    budget, after, now)));
        }
        return true;
    }

    /** What a backfill did. */
    public record Backfilled(int examined, int charged) {
    }

    /**
     * Charges, by the rule of {@link #charge}, every task of {@code organization} (empty: of every organization) that
     * ended on the UTC days [{@code from}, {@code to}] and has no charge yet, whether or not charging is on now. Runs
     * in transactions of {@value #BACKFILL_BATCH} tasks; running it again, or over days charged live, charges
     * nothing twice, and an interrupted run is completed by running it again.
     */
    public Backfilled backfill(Optional<String> organization, LocalDate from, LocalDate to) {
        OffsetDateTime start = from.atStartOfDay().atOffset(ZoneOffset.UTC);
        OffsetDateTime end = to.plusDays(1).atStartOfDay().atOffset(ZoneOffset.UTC);
        int examined = 0;
        int charged = 0;
        UsageDao.Ended after = new UsageDao.Ended(NO_JOB, -1, start.toInstant().minus(1, ChronoUnit.MICROS));
        while (true) {
            UsageDao.Ended from0 = after;
            List<UsageDao.Ended> batch = jdbi.withExtension(UsageDao.class, ledger -> ledger.uncharged(
                    organization.orElse(null), start, end, utc(from0.endedAt()), from0.jobId(), from0.nodeIndex(),
                    BACKFILL_BATCH));
            if (batch.isEmpty()) {
                return new Backfilled(examined, charged);
            }
            charged += jdbi.inTransaction(h -> {
                int written = 0;
                for (UsageDao.Ended task : batch) {
                    written += write(h, task.jobId(), task.nodeIndex(), true) ? 1 : 0;
                }
                return written;
            });
            examined += batch.size();
            after = batch.getLast();
        }
    }

    /** An organization's ledger settings: charging on unless switched off, and its budget if it has one. */
    public record Settings(String organization, boolean charging, Long monthlyBudgetCredits) {
    }

    public Settings settings(String organization) {
        return jdbi.withExtension(UsageDao.class, ledger -> ledger.settings(organization))
                .map(s -> new Settings(organization, s.charging(), s.monthlyBudgetCredits()))
                .orElse(new Settings(organization, true, null));
    }

    /** Switches charging as tasks end on or off for {@code organization}. */
    public Settings setCharging(String organization, boolean charging, String actor) {
        jdbi.useExtension(UsageDao.class, ledger -> ledger.setCharging(organization, charging, now(), actor));
        return settings(organization);
    }

    /**
     * Sets (or with null removes) {@code organization}'s monthly budget. A budget the month's credits already reach
     * records its thresholds' alerts now, once, as a charge crossing them would.
     */
    public Settings setBudget(String organization, Long monthlyCredits, String actor) {
        jdbi.useTransaction(h -> {
            UsageDao ledger = h.attach(UsageDao.class);
            OffsetDateTime now = now();
            ledger.setBudget(organization, monthlyCredits, now, actor);
            if (monthlyCredits != null) {
                LocalDate month = now.toLocalDate().withDayOfMonth(1);
                // Adding nothing takes the month's lock, as a charge does: the two cannot miss each other.
                long credits = ledger.addToMonth(organization, month, 0);
                BudgetThresholds.reached(monthlyCredits, credits).forEach(percent -> recordAlert(h, organization,
                        month, percent, monthlyCredits, credits, now));
            }
        });
        return settings(organization);
    }

    /**
     * Records the alert unless the month has it already, and only then reports it to the destinations that ask for
     * budget alerts, in {@code h}'s transaction: a repeated charge or budget tells nobody twice.
     */
    private static void recordAlert(Handle h, String organization, LocalDate month, int percent, long budget,
                                    long credits, OffsetDateTime now) {
        h.attach(UsageDao.class).recordAlert(organization, month, percent, budget, credits, now).ifPresent(id ->
                EventOutbox.budgetAlert(h, id, organization, new Event.Budget(month.toString().substring(0, 7),
                        percent, budget, credits), now));
    }

    private OffsetDateTime now() {
        return utc(clock.instant().truncatedTo(ChronoUnit.MICROS));
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
