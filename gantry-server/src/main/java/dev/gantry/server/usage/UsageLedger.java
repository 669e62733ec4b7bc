package dev.gantry.server.usage;

import dev.gantry.notify.Event;
import dev.gantry.queue.Message;
import dev.gantry.queue.NewMessage;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Worker;
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
 * transaction or a backfill over tasks charged already change nothing.
 *
 * <p>The charge's transaction only inserts its row and queues it on {@link #QUEUE}; the ledger's own workers
 * ({@link #start}) count it into the organization's month and record the budget thresholds it crosses
 * ({@link BudgetThresholds}), with the notify event that delivers each new alert ({@link EventOutbox#budgetAlert}),
 * each charge exactly once ({@code usage_charge.counted_at}). That is the ledger's bulkhead: the month's row lock, by
 * which one organization's charges take turns, is held by those workers and never by a task's end, so a busy
 * organization cannot hold up the agents' completions, and the workers yield while the database is distressed.
 * Thread-safe.
 */
public final class UsageLedger {
    private static final Logger LOG = LoggerFactory.getLogger(UsageLedger.class);
    /** Tasks one backfill transaction charges. */
    static final int BACKFILL_BATCH = 500;
    private static final UUID NO_JOB = new UUID(0, 0);
    /** The queue of charges still to count into their month, one message per charge. */
    public static final String QUEUE = "usage-count";
    /** The ledger's workers: counting is a few statements, and one organization's counts take turns anyway. */
    static final int WORKERS = 2;
    // A count fails only while the database does; its message is tried again for as long as the queue allows.
    private static final int MESSAGE_ATTEMPTS = 100;

    private final Jdbi jdbi;
    private final Queues queues;
    private final ResourceClasses classes;
    private final InstantSource clock;

    /**
     * @param jdbi    where backfills, settings and the counts run; charges run in their caller's transaction
     * @param queues  where charges wait to be counted
     * @param classes the fleet file's resource classes, whose credits per minute the charges use
     */
    public UsageLedger(Jdbi jdbi, Queues queues, ResourceClasses classes, InstantSource clock) {
        this.jdbi = jdbi;
        this.queues = queues;
        this.classes = classes;
        this.clock = clock;
    }

    /** Starts this server's workers that count charges into their months; none claims while {@code gate} holds. */
    public Worker start(String instance, Worker.ClaimGate gate) {
        return Worker.start(queues, QUEUE, this::count, Worker.Options.named(workerName(instance), WORKERS)
                .withGate(gate));
    }

    /** The name the counting workers of server {@code instance} hold messages under. */
    public static String workerName(String instance) {
        return "usage-count@" + instance;
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
            queues.enqueueAll(h, List.of(NewMessage.to(QUEUE).payload(jobId + ":" + nodeIndex)
                    .uniqueKey("usage/" + jobId + "/" + nodeIndex).group(c.organization())
                    .maxAttempts(MESSAGE_ATTEMPTS)));
        }
        return true;
    }

    /**
     * Counts the charge of one {@link #QUEUE} message into its organization's month, once, with the budget alerts it
     * crosses: what the workers run (and the deterministic simulation, step by step).
     */
    public void count(Message message) {
        String[] task = message.payload().split(":", 2);
        jdbi.useTransaction(h -> {
            UsageDao ledger = h.attach(UsageDao.class);
            OffsetDateTime now = now();
            ledger.count(UUID.fromString(task[0]), Integer.parseInt(task[1]), now).ifPresent(c -> {
                LocalDate month = c.day().withDayOfMonth(1);
                long after = ledger.addToMonth(c.organization(), month, c.credits());
                // Read after the month's lock is held: a budget set meanwhile is seen here or sees this count.
                ledger.budget(c.organization()).ifPresent(budget -> BudgetThresholds.crossed(budget,
                        after - c.credits(), after).forEach(percent -> recordAlert(h, c.organization(), month,
                        percent, budget, after, now)));
            });
        });
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
     * Sets (or with null removes) {@code organization}'s monthly budget. A budget the month's counted credits already
     * reach records its thresholds' alerts now, once, as a count crossing them would.
     */
    public Settings setBudget(String organization, Long monthlyCredits, String actor) {
        jdbi.useTransaction(h -> {
            UsageDao ledger = h.attach(UsageDao.class);
            OffsetDateTime now = now();
            ledger.setBudget(organization, monthlyCredits, now, actor);
            if (monthlyCredits != null) {
                LocalDate month = now.toLocalDate().withDayOfMonth(1);
                // Adding nothing takes the month's lock, as a count does: the two cannot miss each other.
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
