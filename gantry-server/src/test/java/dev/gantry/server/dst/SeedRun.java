package dev.gantry.server.dst;

import dev.gantry.queue.Message;
import dev.gantry.server.agent.AgentCalls;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.pipeline.TriggerCalls;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.Orchestration;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.run.WorkflowStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One seed of the deterministic simulation: a project with a generated config, 1-3 triggers and 1-3 agents, then a
 * fault phase of 10-20 events and a calm phase that must bring everything to an end. Every event is one step of one
 * actor (a client, the server's queue consumer, an agent, the sweeper, the clock), chosen by the seed's random, and
 * the invariants are checked after each. Single-threaded; one run per instance.
 */
final class SeedRun {
    static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    /** Events the calm phase may take to bring every workflow and pipeline to an end. */
    static final int MAX_CALM_EVENTS = 800;

    private enum Fault { NONE, CRASH, HANDLER_FAILS, LOST_REQUEST, LOST_ANSWER, DUPLICATE }

    private enum Report { HEARTBEAT, STEP, COMPLETE }

    private static final class Trigger {
        final String key;
        final String branch;
        TriggerCalls.Answer answer;
        /** The id of a pipeline this trigger committed whose answer was lost. */
        UUID committed;

        Trigger(String key, String branch) {
            this.key = key;
            this.branch = branch;
        }
    }

    private record Choice(int weight, Runnable action) {
    }

    private final Rig rig;
    private final long seed;
    private final long run;
    private final SplittableRandom random;
    private final Consumer<String> echo;
    private final List<String> trace = new ArrayList<>();
    private final Instant base;
    private final Invariants invariants = new Invariants();
    private final List<Trigger> triggers = new ArrayList<>();
    private final List<SimAgent> agents = new ArrayList<>();
    private final Set<String> keysSent = new LinkedHashSet<>();
    private final Map<UUID, String> workflowLabels = new HashMap<>();
    private UUID projectId;
    private ProjectSlug slug;
    private World world;
    private boolean faults;
    private int step;
    private int reruns;
    private int cancels;
    private int calmEvents;
    /** Idle agents whose last claim found nothing, until something else happens. */
    private final Set<SimAgent> declined = new java.util.HashSet<>();
    private boolean claimedNothing;

    /**
     * @param run  this run's number in the JVM: it places the run's virtual time and agent ids apart from the others
     * @param echo where each trace line also goes as it is written (null: nowhere)
     */
    SeedRun(Rig rig, long seed, long run, Consumer<String> echo) {
        this.rig = rig;
        this.seed = seed;
        this.run = run;
        this.random = new SplittableRandom(seed);
        this.echo = echo;
        this.base = START.plus(Duration.ofDays(run));
    }

    /**
     * Runs the seed; returns its trace.
     *
     * @throws SeedFailure naming the seed and the event, when an invariant breaks or anything fails
     */
    List<String> run() {
        try {
            setUp();
            faults = true;
            int faultEvents = 10 + random.nextInt(11);
            for (int i = 0; i < faultEvents; i++) {
                event();
            }
            faults = false;
            log("calm: no more faults; agents keep working, approvals are approved");
            for (int i = 0; !finished(); i++, calmEvents++) {
                if (i == MAX_CALM_EVENTS) {
                    throw new Invariants.Violation("not finished after " + MAX_CALM_EVENTS + " calm events: "
                            + unfinished());
                }
                event();
            }
            log("finished");
            return trace;
        } catch (Throwable failure) {
            rig.faults.disarm();
            throw new SeedFailure(seed, step, failure, trace);
        }
    }

    /** Events run so far, and of them in the calm phase. */
    int[] events() {
        return new int[] {step, calmEvents};
    }

    private void setUp() {
        rig.clock.set(base);
        rig.queueRandom.reseed(random.nextLong());
        projectId = UUID.randomUUID();
        slug = new ProjectSlug("dst", "seed-" + seed + "-run-" + run);
        boolean autoCancel = random.nextBoolean();
        rig.checks.useHandle(h -> h.execute("""
                INSERT INTO gantry.project (id, organization, name, vcs_url, created_at, auto_cancel_redundant)
                VALUES (?, ?, ?, '/dst/repo', ?, ?)""", projectId, slug.organization(), slug.name(),
                base.atOffset(ZoneOffset.UTC), autoCancel));
        String config = GeneratedConfigs.generate(random);
        rig.configs.put(projectId, config);
        int triggerCount = 1 + random.nextInt(3);
        for (int i = 1; i <= triggerCount; i++) {
            triggers.add(new Trigger("key-" + i, random.nextInt(3) == 0 ? "main" : "topic"));
        }
        int agentCount = 1 + random.nextInt(3);
        for (int i = 1; i <= agentCount; i++) {
            SimAgent agent = new SimAgent(i);
            register(agent);
            agents.add(agent);
        }
        log("seed " + seed + ": " + triggerCount + " triggers (" + String.join(", ",
                triggers.stream().map(t -> t.key + " on " + t.branch).toList()) + "), " + agentCount
                + " agents, auto-cancel " + autoCancel + ", config:\n" + config.strip().indent(8).stripTrailing());
        world = World.read(rig.checks, projectId, rig.clock.instant());
    }

    private void event() {
        step++;
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
        world = World.read(rig.checks, projectId, rig.clock.instant());
        invariants.check(world, answered(), keysSent, holders());
    }

    private List<Choice> choices(Instant now) {
        List<Choice> choices = new ArrayList<>();
        for (Trigger t : triggers) {
            if (t.answer == null) {
                choices.add(new Choice(6, () -> trigger(t)));
            } else if (faults) {
                choices.add(new Choice(1, () -> trigger(t)));
            }
        }
        if (world.queue().planDue() > 0) {
            choices.add(new Choice(8, () -> deliver(PipelineTriggers.PLAN_QUEUE)));
        }
        if (world.queue().advanceDue() > 0) {
            choices.add(new Choice(12, () -> deliver(Orchestration.ADVANCE_QUEUE)));
        }
        boolean queued = world.tasks().stream().anyMatch(t -> t.status().equals("queued"));
        for (SimAgent a : agents) {
            if (a.silent(now)) {
                continue;
            }
            if (a.held == null && queued && !declined.contains(a)) {
                choices.add(new Choice(6, () -> claim(a)));
            } else if (a.held != null) {
                choices.add(new Choice(8, () -> work(a)));
            }
            if (faults) {
                choices.add(new Choice(1, () -> crash(a)));
                if (a.held != null) {
                    choices.add(new Choice(1, () -> silence(a)));
                }
            }
        }
        List<World.Job> onHold = world.jobs().stream().filter(j -> j.status().equals("on_hold")).toList();
        if (!onHold.isEmpty()) {
            choices.add(new Choice(faults ? 2 : 6, () -> approve(onHold.get(random.nextInt(onHold.size())))));
        }
        if (faults) {
            if (world.queue().held() > 0) {
                choices.add(new Choice(2, this::rescue));
            }
            choices.add(new Choice(2, this::sweep));
            choices.add(new Choice(1, this::jump));
            List<World.Workflow> open = world.workflows().stream()
                    .filter(w -> !WorkflowStatus.ofWord(w.status()).terminal()).toList();
            if (!open.isEmpty() && cancels < 2) {
                choices.add(new Choice(1, () -> cancel(open.get(random.nextInt(open.size())))));
            }
            List<World.Workflow> ended = world.workflows().stream()
                    .filter(w -> WorkflowStatus.ofWord(w.status()).terminal()).toList();
            if (!ended.isEmpty() && reruns < 2) {
                choices.add(new Choice(2, () -> rerun(ended.get(random.nextInt(ended.size())))));
            }
        } else if (choices.isEmpty()) {
            // Calm and nothing to do until a lease runs out or a retry falls due: go there at once.
            choices.add(new Choice(1, this::idle));
        }
        return choices;
    }

    /** Moves the clock to the next moment something is due (a queue message, a lease, a silent agent's return). */
    private void idle() {
        Instant now = rig.clock.instant();
        Instant next = world.queue().next();
        for (World.Task t : world.tasks()) {
            if (t.status().equals("running") && t.leaseUntil() != null) {
                Instant expiry = t.leaseUntil().plusMillis(1);
                next = next == null || expiry.isBefore(next) ? expiry : next;
            }
        }
        for (SimAgent a : agents) {
            if (a.silent(now)) {
                next = next == null || a.silentUntil.isBefore(next) ? a.silentUntil : next;
            }
        }
        if (next != null && next.isAfter(now)) {
            rig.clock.set(next);
        }
        log("idle: time passes to the next moment something is due");
        rescue();
        sweep();
    }

    // ---- the API's clients

    private void trigger(Trigger t) {
        Fault f = fault(70, Fault.NONE, 15, Fault.CRASH, 15, Fault.LOST_ANSWER);
        keysSent.add(t.key);
        String what = "client: trigger " + t.key + " on " + t.branch;
        TriggerCalls.Answer a;
        try {
            arm(f);
            a = rig.triggers.trigger(slug, t.branch, t.key);
        } catch (RuntimeException e) {
            crashedOrThrow(e, what);
            return;
        } finally {
            rig.faults.disarm();
        }
        if (t.answer != null && (!t.answer.pipelineId().equals(a.pipelineId()) || a.created())) {
            throw new Invariants.Violation("the repeat of trigger " + t.key + " was answered with pipeline #"
                    + a.number() + (a.created() ? " (created)" : "") + ", not #" + t.answer.number());
        }
        if (t.committed != null && (!t.committed.equals(a.pipelineId()) || a.created())) {
            throw new Invariants.Violation("trigger " + t.key + " committed a pipeline whose answer was lost; its "
                    + "retry got pipeline #" + a.number() + (a.created() ? ", a new one" : ", another one"));
        }
        if (f == Fault.LOST_ANSWER) {
            t.committed = a.pipelineId();
            log(what + " -> committed pipeline #" + a.number() + ", but the answer was lost");
            return;
        }
        if (t.answer == null) {
            t.answer = a;
        }
        log(what + " -> pipeline #" + a.number() + (a.created() ? " (201)" : " (200, the same pipeline)"));
    }

    private void approve(World.Job job) {
        Fault f = fault(90, Fault.NONE, 10, Fault.CRASH, 0, Fault.NONE);
        String what = "user: approve job #" + job.number() + " " + job.name();
        try {
            arm(f);
            rig.commands.approve(job.workflowId(), job.id());
            log(what);
        } catch (ApiException e) {
            log(what + " -> " + e.status());
        } catch (RuntimeException e) {
            crashedOrThrow(e, what);
        } finally {
            rig.faults.disarm();
        }
    }

    private void cancel(World.Workflow w) {
        cancels++;
        Fault f = fault(90, Fault.NONE, 10, Fault.CRASH, 0, Fault.NONE);
        String what = "user: cancel " + label(w.id());
        try {
            arm(f);
            rig.commands.cancel(w.id());
            log(what);
        } catch (RuntimeException e) {
            crashedOrThrow(e, what);
        } finally {
            rig.faults.disarm();
        }
    }

    private void rerun(World.Workflow w) {
        reruns++;
        boolean fromFailed = random.nextBoolean();
        Fault f = fault(90, Fault.NONE, 10, Fault.CRASH, 0, Fault.NONE);
        String what = "user: rerun " + label(w.id()) + (fromFailed ? " from failed" : "");
        try {
            arm(f);
            rig.commands.rerun(w.id(), fromFailed);
            log(what);
        } catch (ApiException e) {
            log(what + " -> " + e.status());
        } catch (RuntimeException e) {
            crashedOrThrow(e, what);
        } finally {
            rig.faults.disarm();
        }
    }

    // ---- the server's queue consumers, its sweeper, the clock

    private void deliver(String queue) {
        List<Message> claimed = rig.queues.claim(queue, Rig.WORKER, 1);
        if (claimed.isEmpty()) {
            log("server: nothing due on " + queue);
            return;
        }
        Message m = claimed.getFirst();
        String what = "server: " + describe(m) + " (attempt " + m.attempt() + ")";
        // A message's last deliveries get no faults: five in a row would dead-letter it, which is the queue's
        // design, not a bug to find here.
        Fault f = m.attempt() >= 3 ? Fault.NONE
                : fault(60, Fault.NONE, 12, Fault.CRASH, 8, Fault.HANDLER_FAILS, 10, Fault.LOST_ANSWER, 10,
                Fault.DUPLICATE);
        try {
            arm(f);
            handle(m);
        } catch (RuntimeException e) {
            boolean crashed = rig.faults.disarm() && Crash.in(e);
            if (!crashed) {
                throw e;
            }
            if (f == Fault.HANDLER_FAILS) {
                boolean retried = rig.queues.fail(m, e.toString(), true);
                log(what + " -> the handler failed; the worker recorded it, "
                        + (retried ? "to be retried" : "dead-lettered"));
            } else {
                log(what + " -> the server crashed; the message stays held until its lease runs out");
            }
            return;
        } finally {
            rig.faults.disarm();
        }
        if (f == Fault.DUPLICATE) {
            handle(m);
        }
        if (f == Fault.LOST_ANSWER) {
            log(what + " handled, but its completion was lost: it will be delivered again");
            return;
        }
        rig.queues.complete(m);
        log(what + " handled" + (f == Fault.DUPLICATE ? " twice" : ""));
    }

    private void handle(Message m) {
        if (m.queue().equals(PipelineTriggers.PLAN_QUEUE)) {
            try {
                rig.planner.handle(m);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        } else {
            rig.advancer.handle(m);
        }
    }

    private void rescue() {
        int rescued = rig.queues.rescueExpired(100);
        log("server: queue maintenance rescued " + rescued + " expired leases");
    }

    private void sweep() {
        Fault f = fault(90, Fault.NONE, 10, Fault.CRASH, 0, Fault.NONE);
        try {
            arm(f);
            int lost = rig.agents.sweep();
            log("server: lease sweep gave up " + lost + " tasks");
        } catch (RuntimeException e) {
            crashedOrThrow(e, "server: lease sweep");
        } finally {
            rig.faults.disarm();
        }
    }

    private void jump() {
        Duration d = Duration.ofSeconds(5 + random.nextInt(36));
        rig.clock.advance(d);
        log("time passes: +" + d.toSeconds() + "s");
    }

    // ---- agents

    private void register(SimAgent agent) {
        UUID given = rig.agents.register("dst-" + agent.name(), 2, 4096);
        // Fixed ids, in slot order: placement breaks ties between equal agents by id.
        UUID fixed = new UUID(run, agent.slot * 1_000L + agent.incarnation);
        rig.checks.useHandle(h -> h.execute("UPDATE gantry.agent SET id = ? WHERE id = ?", fixed, given));
        agent.id = fixed;
    }

    private void claim(SimAgent a) {
        Fault f = fault(75, Fault.NONE, 10, Fault.CRASH, 15, Fault.LOST_ANSWER);
        String what = "agent " + a.name() + ": claim";
        Optional<AgentCalls.Claimed> claimed;
        try {
            arm(f);
            claimed = rig.agents.claim(a.id, 2, 4096);
        } catch (RuntimeException e) {
            crashedOrThrow(e, what);
            return;
        } finally {
            rig.faults.disarm();
        }
        if (claimed.isEmpty()) {
            log(what + " -> nothing for it");
            declined.add(a);
            claimedNothing = true;
            return;
        }
        AgentCalls.Claimed c = claimed.get();
        String task = "job #" + c.jobNumber() + " node " + c.task().nodeIndex() + " (attempt " + c.attempt() + ")";
        if (f == Fault.LOST_ANSWER) {
            log(what + " -> " + task + ", but the answer was lost");
            return;
        }
        a.held = new SimAgent.Held(c, random.nextInt(4) == 0 ? TaskStatus.FAILED : TaskStatus.SUCCESS,
                random.nextInt(3));
        log(what + " -> " + task + ", will end " + a.held.outcome.word());
    }

    private void work(SimAgent a) {
        SimAgent.Held h = a.held;
        Report report;
        if (a.silentUntil != null) {
            // Back from silence: it reports whatever it was about to, unaware of how long it was away.
            a.silentUntil = null;
            report = switch (random.nextInt(3)) {
                case 0 -> Report.HEARTBEAT;
                case 1 -> h.stepsLeft > 0 ? Report.STEP : Report.COMPLETE;
                default -> Report.COMPLETE;
            };
        } else if (faults) {
            report = h.cancel || h.stepsLeft == 0 ? (random.nextInt(3) == 0 ? Report.HEARTBEAT : Report.COMPLETE)
                    : (random.nextBoolean() ? Report.HEARTBEAT : Report.STEP);
        } else {
            // Calm: get on with it (its steps are reported in the fault phase), heartbeating only when the lease
            // nears its end.
            World.Task t = world.task(h.claimed.task().jobId(), h.claimed.task().nodeIndex());
            boolean renew = t != null && t.status().equals("running") && t.leaseUntil() != null
                    && t.leaseUntil().isBefore(rig.clock.instant().plus(Rig.AGENT.leaseTimeout().dividedBy(2)));
            report = renew ? Report.HEARTBEAT : Report.COMPLETE;
        }
        TaskStatus end = h.cancel ? TaskStatus.CANCELED : h.outcome;
        String what = "agent " + a.name() + ": " + switch (report) {
            case HEARTBEAT -> "heartbeat";
            case STEP -> "step " + h.nextStep;
            case COMPLETE -> "complete " + end.word();
        } + " of " + h.label();
        Fault f = fault(64, Fault.NONE, 9, Fault.LOST_REQUEST, 9, Fault.CRASH, 9, Fault.LOST_ANSWER, 9,
                Fault.DUPLICATE);
        if (f == Fault.LOST_REQUEST) {
            log(what + " -> lost before the server; the agent will send it again");
            return;
        }
        int sends = f == Fault.DUPLICATE ? 2 : 1;
        for (int send = 1; send <= sends; send++) {
            World.Task before = taskNow(h);
            boolean current = before != null && before.status().equals("running")
                    && h.claimed.lease().equals(before.lease());
            boolean repeat = report == Report.COMPLETE && before != null && h.claimed.lease().equals(before.lease())
                    && TaskStatus.ofWord(before.status()).terminal()
                    && !before.status().equals(TaskStatus.INFRASTRUCTURE_FAIL.word());
            boolean cancel;
            try {
                arm(f);
                cancel = send(report, h, end);
            } catch (ApiException e) {
                if (e.status() != 409) {
                    throw e;
                }
                if (current || repeat) {
                    throw new Invariants.Violation(what + " was refused (409) though the agent holds the task's "
                            + "current lease");
                }
                log(what + " -> 409: the lease is no longer the task's; the agent stops the task");
                a.held = null;
                return;
            } catch (RuntimeException e) {
                crashedOrThrow(e, what);
                return;
            } finally {
                rig.faults.disarm();
            }
            if (!current && !repeat) {
                throw new Invariants.Violation(what + " was accepted, but the server had given the task up or "
                        + "handed it to another (task is " + (before == null ? "gone" : before.status()) + ")");
            }
            if (f == Fault.LOST_ANSWER) {
                log(what + " -> accepted, but the answer was lost; the agent will send it again");
                return;
            }
            if (send < sends) {
                continue; // the same report again: the agent acts on the last answer
            }
            switch (report) {
                case HEARTBEAT -> h.cancel |= cancel;
                case STEP -> {
                    h.stepsLeft--;
                    h.nextStep++;
                }
                case COMPLETE -> a.held = null;
            }
            log(what + " -> accepted" + (cancel ? ", cancel requested" : "") + (sends == 2 ? " (sent twice)" : ""));
        }
    }

    /** Sends one report; true when a heartbeat's answer asks to cancel. */
    private boolean send(Report report, SimAgent.Held h, TaskStatus end) {
        Instant now = rig.clock.instant();
        return switch (report) {
            case HEARTBEAT -> rig.agents.heartbeat(h.claimed.task(), h.claimed.lease());
            case STEP -> {
                rig.agents.step(h.claimed.task(), h.claimed.lease(), h.nextStep, "success", now, now);
                yield false;
            }
            case COMPLETE -> {
                rig.agents.complete(h.claimed.task(), h.claimed.lease(), end);
                yield false;
            }
        };
    }

    private World.Task taskNow(SimAgent.Held h) {
        return World.task(rig.checks, h.claimed.task().jobId(), h.claimed.task().nodeIndex());
    }

    private void crash(SimAgent a) {
        log("agent " + a.name() + " crashes" + (a.held == null ? "" : ", forgetting " + a.held.label())
                + "; it restarts and registers again");
        a.held = null;
        a.silentUntil = null;
        a.incarnation++;
        register(a);
    }

    private void silence(SimAgent a) {
        Duration d = Rig.AGENT.leaseTimeout().plusSeconds(1 + random.nextInt(30));
        a.silentUntil = rig.clock.instant().plus(d);
        log("agent " + a.name() + " goes silent for " + d.toSeconds() + "s, holding " + a.held.label());
    }

    // ---- bookkeeping

    private Fault fault(Object... weightsAndFaults) {
        if (!faults) {
            return Fault.NONE;
        }
        int total = 0;
        for (int i = 0; i < weightsAndFaults.length; i += 2) {
            total += (Integer) weightsAndFaults[i];
        }
        int pick = random.nextInt(total);
        for (int i = 0; i < weightsAndFaults.length; i += 2) {
            pick -= (Integer) weightsAndFaults[i];
            if (pick < 0) {
                return (Fault) weightsAndFaults[i + 1];
            }
        }
        throw new IllegalStateException();
    }

    /** Arms a crash at a random statement of the call to come, if the fault is one. */
    private void arm(Fault f) {
        if (f == Fault.CRASH || f == Fault.HANDLER_FAILS) {
            rig.faults.arm(1 + random.nextInt(8));
        }
    }

    private void crashedOrThrow(RuntimeException e, String what) {
        boolean fired = rig.faults.disarm();
        if (!fired || !Crash.in(e)) {
            throw e;
        }
        log(what + " -> the server crashed mid-call (" + e.getMessage() + "); no answer");
    }

    private List<Invariants.Answered> answered() {
        List<Invariants.Answered> answered = new ArrayList<>();
        for (Trigger t : triggers) {
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
                && world.pipelines().stream().noneMatch(p -> p.state().equals("pending"))
                && world.workflows().stream().allMatch(w -> WorkflowStatus.ofWord(w.status()).terminal())
                && world.jobs().stream().allMatch(j -> JobStatus.ofWord(j.status()).terminal())
                && world.queue().empty()
                && agents.stream().allMatch(a -> a.held == null);
    }

    private String unfinished() {
        List<String> open = new ArrayList<>();
        triggers.stream().filter(t -> t.answer == null).forEach(t -> open.add("trigger " + t.key + " unanswered"));
        world.pipelines().stream().filter(p -> p.state().equals("pending"))
                .forEach(p -> open.add("pipeline #" + p.number() + " pending"));
        world.workflows().stream().filter(w -> !WorkflowStatus.ofWord(w.status()).terminal())
                .forEach(w -> open.add(label(w.id()) + " " + w.status()));
        world.jobs().stream().filter(j -> !JobStatus.ofWord(j.status()).terminal())
                .forEach(j -> open.add("job #" + j.number() + " " + j.name() + " " + j.status()));
        if (!world.queue().empty()) {
            open.add("queue " + world.queue());
        }
        agents.stream().filter(a -> a.held != null).forEach(a -> open.add(a.name() + " holds " + a.held.label()));
        return String.join(", ", open);
    }

    private String describe(Message m) {
        UUID id = UUID.fromString(m.payload());
        if (m.queue().equals(PipelineTriggers.PLAN_QUEUE)) {
            return "plan pipeline #" + world.pipelines().stream().filter(p -> p.id().equals(id))
                    .map(p -> String.valueOf(p.number())).findFirst().orElse("?");
        }
        return "advance " + label(id);
    }

    private String label(UUID workflowId) {
        String known = workflowLabels.get(workflowId);
        if (known != null) {
            return known;
        }
        Map<String, Integer> seen = new HashMap<>();
        for (World.Workflow w : world.workflows()) {
            String name = "p" + w.pipelineNumber() + "." + w.name();
            int n = seen.merge(name, 1, Integer::sum);
            workflowLabels.putIfAbsent(w.id(), n == 1 ? name : name + "/rerun" + (n - 1));
        }
        return workflowLabels.getOrDefault(workflowId, "workflow ?");
    }

    private void log(String line) {
        String entry = String.format("%4d %8.3fs %s", step,
                Duration.between(base, rig.clock.instant()).toMillis() / 1000.0, line);
        trace.add(entry);
        if (echo != null) {
            echo.accept(entry);
        }
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
