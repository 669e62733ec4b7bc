package dev.gantry.server.dst;

import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.Orchestration;
import dev.gantry.server.run.WorkflowStatus;
import dev.gantry.server.usage.UsageLedger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One seed of the deterministic simulation: a project with a generated config, 1-3 triggers and 1-3 agents, then a
 * fault phase of 8-16 events and a calm phase that must bring everything to an end. Every event is one step of one
 * actor ({@link ClientSteps}, {@link ServerSteps}, {@link AgentSteps}), chosen by the seed's random, and the
 * invariants are checked after each. Single-threaded; one run per instance.
 */
final class SeedRun {
    static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    /** Events the calm phase may take to bring every workflow and pipeline to an end. */
    static final int MAX_CALM_EVENTS = 800;
    static final String ORGANIZATION = "dst";

    private record Choice(int weight, Runnable action) {
    }

    private final long seed;
    private final SplittableRandom random;
    private final Stage stage;
    private final Rig rig;
    private final Invariants invariants = new Invariants();
    private final List<ClientSteps.Trigger> triggers = new ArrayList<>();
    private final List<SimAgent> agents = new ArrayList<>();
    private final ServerSteps server;
    private final AgentSteps agentSteps;
    private ClientSteps clients;
    private UUID projectId;
    private int calmEvents;
    /** Idle agents whose last claim found nothing, until something else happens. */
    private final Set<SimAgent> declined = new HashSet<>();
    private boolean claimedNothing;

    /**
     * @param run  this run's number in the JVM: it places the run's virtual time and agent ids apart from the others
     * @param echo where each trace line also goes as it is written (null: nowhere)
     */
    SeedRun(Rig rig, long seed, long run, Consumer<String> echo) {
        this.rig = rig;
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.stage = new Stage(rig, random, run, START.plus(Duration.ofDays(run)), echo);
        this.server = new ServerSteps(stage, agents);
        this.agentSteps = new AgentSteps(stage);
    }

    /**
     * Runs the seed; returns its trace.
     *
     * @throws SeedFailure naming the seed and the event, when an invariant breaks or anything fails
     */
    List<String> run() {
        try {
            setUp();
            stage.faults = true;
            int faultEvents = 8 + random.nextInt(9);
            for (int i = 0; i < faultEvents; i++) {
                event();
            }
            stage.faults = false;
            stage.log("calm: no more faults; agents keep working, approvals are approved");
            for (int i = 0; !finished(); i++, calmEvents++) {
                if (i == MAX_CALM_EVENTS) {
                    throw new Invariants.Violation("not finished after " + MAX_CALM_EVENTS + " calm events: "
                            + unfinished());
                }
                event();
            }
            backfillIfSwitchedOff();
            stage.log("finished");
            return stage.trace;
        } catch (Throwable failure) {
            rig.faults.disarm();
            throw new SeedFailure(seed, stage.step, failure, stage.trace);
        }
    }

    /** Events run so far, and of them in the calm phase. */
    int[] events() {
        return new int[] {stage.step, calmEvents};
    }

    private void setUp() {
        rig.clock.set(stage.base);
        rig.queueRandom.reseed(random.nextLong());
        projectId = UUID.randomUUID();
        ProjectSlug slug = new ProjectSlug(ORGANIZATION, "seed-" + seed + "-run-" + stage.run);
        clients = new ClientSteps(stage, slug);
        boolean autoCancel = random.nextBoolean();
        // Every seed's project is in organization dst: its charging starts on, whatever the seed before did.
        rig.checks.useHandle(h -> h.execute("DELETE FROM gantry.usage_organization WHERE organization = ?",
                ORGANIZATION));
        rig.checks.useHandle(h -> h.execute("""
                INSERT INTO gantry.project (id, organization, name, vcs_url, created_at, auto_cancel_redundant)
                VALUES (?, ?, ?, '/dst/repo', ?, ?)""", projectId, slug.organization(), slug.name(),
                stage.base.atOffset(ZoneOffset.UTC), autoCancel));
        String config = GeneratedConfigs.generate(random);
        rig.configs.put(projectId, config);
        int triggerCount = 1 + random.nextInt(3);
        for (int i = 1; i <= triggerCount; i++) {
            triggers.add(new ClientSteps.Trigger("key-" + i, random.nextInt(3) == 0 ? "main" : "topic"));
        }
        int agentCount = 1 + random.nextInt(3);
        for (int i = 1; i <= agentCount; i++) {
            SimAgent agent = new SimAgent(i);
            agentSteps.register(agent);
            agents.add(agent);
        }
        stage.log("seed " + seed + ": " + triggerCount + " triggers (" + String.join(", ",
                triggers.stream().map(t -> t.key + " on " + t.branch).toList()) + "), " + agentCount
                + " agents, auto-cancel " + autoCancel + ", config:\n" + config.strip().indent(8).stripTrailing());
        stage.world = World.read(rig.checks, projectId, rig.clock.instant());
    }

    private void event() {
        stage.step++;
        rig.clock.advance(Duration.ofMillis(20 + random.nextInt(580)));
        List<Choice> choices = choices(rig.clock.instant());
        int total = choices.stream().mapToInt(Choice::weight).sum();
        int pick = random.nextInt(total);
        for (Choice c : choices) {
            pick -= c.weight();
            if (pick < 0) {
                claimedNothing = false;
                c.action().run();
                if (!claimedNothing) {
                    declined.clear();
                }
                break;
            }
        }
        stage.world = World.read(rig.checks, projectId, rig.clock.instant());
        invariants.check(stage.world, answered(), clients.keysSent, holders());
    }

    private List<Choice> choices(Instant now) {
        List<Choice> choices = new ArrayList<>();
        for (ClientSteps.Trigger t : triggers) {
            if (t.answer == null) {
                choices.add(new Choice(6, () -> clients.trigger(t)));
            } else if (stage.faults) {
                choices.add(new Choice(1, () -> clients.trigger(t)));
            }
        }
        if (stage.world.queue().planDue() > 0) {
            choices.add(new Choice(8, () -> server.deliver(PipelineTriggers.PLAN_QUEUE)));
        }
        if (stage.world.queue().advanceDue() > 0) {
            choices.add(new Choice(12, () -> server.deliver(Orchestration.ADVANCE_QUEUE)));
        }
        if (stage.world.ledger().countsDue() > 0) {
            choices.add(new Choice(4, () -> server.deliver(UsageLedger.QUEUE)));
        }
        boolean queued = stage.world.tasks().stream().anyMatch(t -> t.status().equals("queued"));
        for (SimAgent a : agents) {
            if (a.silent(now)) {
                continue;
            }
            if (a.held == null && queued && !declined.contains(a)) {
                choices.add(new Choice(6, () -> {
                    if (!agentSteps.claim(a)) {
                        declined.add(a);
                        claimedNothing = true;
                    }
                }));
            } else if (a.held != null) {
                choices.add(new Choice(8, () -> agentSteps.work(a)));
            }
            if (stage.faults) {
                choices.add(new Choice(1, () -> agentSteps.crash(a)));
                if (a.held != null) {
                    choices.add(new Choice(1, () -> agentSteps.silence(a)));
                }
            }
        }
        List<World.Job> onHold = stage.world.jobs().stream().filter(j -> j.status().equals("on_hold")).toList();
        if (!onHold.isEmpty()) {
            choices.add(new Choice(stage.faults ? 2 : 6,
                    () -> clients.approve(onHold.get(random.nextInt(onHold.size())))));
        }
        if (stage.faults) {
            if (stage.world.queue().held() > 0) {
                choices.add(new Choice(2, server::rescue));
            }
            choices.add(new Choice(2, server::sweep));
            choices.add(new Choice(1, this::switchCharging));
            choices.add(new Choice(1, server::jump));
            List<World.Workflow> open = stage.world.workflows().stream()
                    .filter(w -> !WorkflowStatus.ofWord(w.status()).terminal()).toList();
            if (!open.isEmpty() && clients.cancels < 2) {
                choices.add(new Choice(1, () -> clients.cancel(open.get(random.nextInt(open.size())))));
            }
            List<World.Workflow> ended = stage.world.workflows().stream()
                    .filter(w -> WorkflowStatus.ofWord(w.status()).terminal()).toList();
            if (!ended.isEmpty() && clients.reruns < 2) {
                choices.add(new Choice(2, () -> clients.rerun(ended.get(random.nextInt(ended.size())))));
            }
        } else if (choices.isEmpty()) {
            // Calm and nothing to do until a lease runs out or a retry falls due: go there at once.
            choices.add(new Choice(1, server::idle));
        }
        return choices;
    }

    /** The operator switches the organization's charging off, or on again. */
    private void switchCharging() {
        boolean on = rig.usage.settings(ORGANIZATION).charging();
        rig.usage.setCharging(ORGANIZATION, !on, "operator");
        invariants.chargingWasOff |= on;
        stage.log("operator: charging of organization " + ORGANIZATION + " switched " + (on ? "off" : "on"));
    }

    /**
     * When charging was off at some moment, the operator switches it on and backfills the seed's days, which may
     * crash at any statement and is then run again; after it every task is charged as the rule says (checked as
     * always-on), and a second backfill charges nothing.
     */
    private void backfillIfSwitchedOff() {
        if (!invariants.chargingWasOff) {
            return;
        }
        rig.usage.setCharging(ORGANIZATION, true, "operator");
        LocalDate from = LocalDate.ofInstant(stage.base, ZoneOffset.UTC);
        LocalDate to = LocalDate.ofInstant(rig.clock.instant(), ZoneOffset.UTC);
        stage.faults = true;
        stage.arm(stage.fault(1, Fault.NONE, 1, Fault.CRASH));
        stage.faults = false;
        try {
            UsageLedger.Backfilled done = rig.usage.backfill(Optional.of(ORGANIZATION), from, to);
            stage.log("operator: backfill charged " + done.charged() + " of " + done.examined() + " tasks");
        } catch (RuntimeException e) {
            stage.crashedOrThrow(e, "operator: backfill");
        } finally {
            rig.faults.disarm();
        }
        UsageLedger.Backfilled again = rig.usage.backfill(Optional.of(ORGANIZATION), from, to);
        stage.log("operator: backfill again charged " + again.charged() + " of " + again.examined() + " tasks");
        UsageLedger.Backfilled third = rig.usage.backfill(Optional.of(ORGANIZATION), from, to);
        if (third.charged() != 0) {
            throw new Invariants.Violation("a backfill after a complete one charged " + third.charged() + " tasks");
        }
        invariants.chargingWasOff = false;
        // The backfill's charges are counted into the month, as the ledger's workers count them, so that the next
        // seed starts with every month complete.
        stage.world = World.read(rig.checks, projectId, rig.clock.instant());
        while (stage.world.ledger().countsDue() > 0) {
            server.deliver(UsageLedger.QUEUE);
            stage.world = World.read(rig.checks, projectId, rig.clock.instant());
        }
        if (stage.world.ledger().uncounted() > 0) {
            throw new Invariants.Violation(stage.world.ledger().uncounted() + " backfilled charges not counted");
        }
        invariants.check(stage.world, answered(), clients.keysSent, holders());
    }

    // ---- bookkeeping

    private List<Invariants.Answered> answered() {
        List<Invariants.Answered> answered = new ArrayList<>();
        for (ClientSteps.Trigger t : triggers) {
            if (t.answer != null) {
                answered.add(new Invariants.Answered(t.key, t.answer.pipelineId()));
            } else if (t.committed != null) {
                answered.add(new Invariants.Answered(t.key, t.committed));
            }
        }
        return answered;
    }

    private List<Invariants.Holder> holders() {
        List<Invariants.Holder> holders = new ArrayList<>();
        for (SimAgent a : agents) {
            if (a.held != null) {
                holders.add(new Invariants.Holder(a.name(), a.held.claimed.task().jobId(),
                        a.held.claimed.task().nodeIndex(), a.held.claimed.lease()));
            }
        }
        return holders;
    }

    private boolean finished() {
        return triggers.stream().allMatch(t -> t.answer != null)
                && stage.world.pipelines().stream().noneMatch(p -> p.state().equals("pending"))
                && stage.world.workflows().stream().allMatch(w -> WorkflowStatus.ofWord(w.status()).terminal())
                && stage.world.jobs().stream().allMatch(j -> JobStatus.ofWord(j.status()).terminal())
                && stage.world.queue().empty()
                && stage.world.ledger().uncounted() == 0
                && agents.stream().allMatch(a -> a.held == null);
    }

    private String unfinished() {
        List<String> open = new ArrayList<>();
        triggers.stream().filter(t -> t.answer == null).forEach(t -> open.add("trigger " + t.key + " unanswered"));
        stage.world.pipelines().stream().filter(p -> p.state().equals("pending"))
                .forEach(p -> open.add("pipeline #" + p.number() + " pending"));
        stage.world.workflows().stream().filter(w -> !WorkflowStatus.ofWord(w.status()).terminal())
                .forEach(w -> open.add(stage.label(w.id()) + " " + w.status()));
        stage.world.jobs().stream().filter(j -> !JobStatus.ofWord(j.status()).terminal())
                .forEach(j -> open.add("job #" + j.number() + " " + j.name() + " " + j.status()));
        if (!stage.world.queue().empty()) {
            open.add("queue " + stage.world.queue());
        }
        if (stage.world.ledger().uncounted() > 0) {
            open.add(stage.world.ledger().uncounted() + " charges not counted into their month");
        }
        agents.stream().filter(a -> a.held != null).forEach(a -> open.add(a.name() + " holds " + a.held.label()));
        return String.join(", ", open);
    }

    /** A seed that broke an invariant or failed otherwise, with its trace. */
    static final class SeedFailure extends AssertionError {
        final long seed;
        final List<String> trace;

        SeedFailure(long seed, int step, Throwable cause, List<String> trace) {
            super("seed " + seed + " failed at event " + step + ": " + cause, cause);
            this.seed = seed;
            this.trace = List.copyOf(trace);
        }
    }
}
