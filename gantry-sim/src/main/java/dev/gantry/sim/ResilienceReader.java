package dev.gantry.sim;

import dev.gantry.resilience.Backoff;
import dev.gantry.resilience.DistressPause;
import dev.gantry.sim.Resilience.BaselineRetries;
import dev.gantry.sim.Resilience.Capped;
import dev.gantry.sim.Resilience.Clients;
import dev.gantry.sim.Resilience.Database;
import dev.gantry.sim.Resilience.Endpoint;
import dev.gantry.sim.Resilience.Outbound;
import dev.gantry.sim.Resilience.GantrySettings;
import dev.gantry.sim.Resilience.Retrigger;
import dev.gantry.sim.Resilience.Window;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads a scenario's {@code database}, {@code outbound}, {@code clients} and {@code gantry} sections and the baseline's
 * {@code retries}, into {@link Resilience}. Problems go to the shared {@link YamlReader}, so they are reported with
 * the rest of the file's. Not thread-safe.
 */
final class ResilienceReader {
    private static final Set<String> DATABASE_KEYS = Set.of("writes_per_second", "latency", "capped", "read_only");
    private static final Set<String> CAPPED_KEYS = Set.of("from", "until", "writes_per_second");
    private static final Set<String> WINDOW_KEYS = Set.of("from", "until");
    private static final Set<String> CLIENT_KEYS = Set.of("timeout", "retrigger");
    private static final Set<String> RETRIGGER_KEYS = Set.of("after", "times");
    private static final Set<String> GANTRY_KEYS = Set.of("dispatch_per_second", "retry_budget", "backoff",
            "pause", "circuit_breaker");
    private static final Set<String> BREAKER_KEYS = Set.of("failures", "open_for");
    private static final Set<String> OUTBOUND_KEYS = Set.of("workers", "share", "dispatch", "deadline",
            "endpoints");
    private static final Set<String> ENDPOINT_KEYS = Set.of("name", "calls_per_hour", "latency", "timeout",
            "failing", "hanging");
    private static final Set<String> BUDGET_KEYS = Set.of("ratio", "burst");
    private static final Set<String> BACKOFF_KEYS = Set.of("base", "cap");
    private static final Set<String> PAUSE_KEYS = Set.of("latency_threshold", "quiet_for", "ramp_from",
            "ramp_over");
    static final Set<String> RETRIES_KEYS = Set.of("attempts", "every");

    private final YamlReader yaml;

    ResilienceReader(YamlReader yaml) {
        this.yaml = yaml;
    }

    Resilience read(Node database, Node outbound, Node clients, Node gantry, Node baselineRetries) {
        return new Resilience(database == null ? Optional.empty() : Optional.ofNullable(database(database)),
                outbound == null ? Optional.empty() : Optional.ofNullable(outbound(outbound)),
                clients == null ? Clients.DEFAULT : clients(clients),
                gantry == null ? GantrySettings.DEFAULT : gantry(gantry),
                baselineRetries == null ? BaselineRetries.DEFAULT : retries(baselineRetries));
    }

    private Database database(Node node) {
        Map<String, Node> f = yaml.fields(node, DATABASE_KEYS, "'database'");
        double rate = 0;
        if (!f.containsKey("writes_per_second")) {
            yaml.problem(node, "'database' needs 'writes_per_second', what it commits normally");
        } else {
            rate = positiveNumber(f.get("writes_per_second"), "writes_per_second");
        }
        Duration latency = f.containsKey("latency") ? yaml.duration(f.get("latency")) : Duration.ofMillis(20);
        List<Capped> capped = new ArrayList<>();
        for (Node c : yaml.list(f.get("capped"), "'capped'")) {
            Map<String, Node> cf = yaml.fields(c, CAPPED_KEYS, "a capped window");
            Window w = window(c, cf, "a capped window");
            if (!cf.containsKey("writes_per_second")) {
                yaml.problem(c, "a capped window needs 'writes_per_second'");
            } else if (w != null) {
                capped.add(new Capped(w, positiveNumber(cf.get("writes_per_second"), "writes_per_second")));
            }
        }
        List<Window> readOnly = new ArrayList<>();
        for (Node r : yaml.list(f.get("read_only"), "'read_only'")) {
            Window w = window(r, yaml.fields(r, WINDOW_KEYS, "a read-only window"), "a read-only window");
            if (w != null) {
                readOnly.add(w);
            }
        }
        return latency == null || rate == 0 ? null : new Database(rate, latency, capped, readOnly);
    }

    private Outbound outbound(Node node) {
        Map<String, Node> f = yaml.fields(node, OUTBOUND_KEYS, "'outbound'");
        int workers = f.containsKey("workers") ? yaml.integer(f.get("workers"), "workers", 1) : 20;
        double share = f.containsKey("share") ? fraction(f.get("share"), "share") : 0.1;
        Duration dispatch = f.containsKey("dispatch") ? yaml.duration(f.get("dispatch")) : Duration.ofMillis(200);
        Duration deadline = f.containsKey("deadline") ? yaml.positive(f.get("deadline")) : Duration.ofMinutes(1);
        List<Endpoint> endpoints = new ArrayList<>();
        for (Node e : yaml.list(f.get("endpoints"), "'endpoints'")) {
            Map<String, Node> ef = yaml.fields(e, ENDPOINT_KEYS, "an endpoint");
            String name = yaml.requiredText(e, ef, "name", "an endpoint");
            double perHour = ef.containsKey("calls_per_hour") ? yaml.number(ef.get("calls_per_hour"),
                    "calls_per_hour") : 0;
            Duration latency = ef.containsKey("latency") ? yaml.duration(ef.get("latency")) : Duration.ofMillis(200);
            Duration timeout = ef.containsKey("timeout") ? yaml.positive(ef.get("timeout")) : Duration.ofSeconds(10);
            List<Window> failing = windows(ef.get("failing"), "'failing'");
            List<Window> hanging = windows(ef.get("hanging"), "'hanging'");
            if (name != null && latency != null && timeout != null) {
                endpoints.add(new Endpoint(name, perHour, latency, timeout, failing, hanging));
            }
        }
        if (share * workers < 1) {
            yaml.problem(f.get("share"), "'share' of " + workers + " workers must be at least one worker");
        }
        return dispatch == null || deadline == null ? null
                : new Outbound(workers, share, dispatch, deadline, endpoints);
    }

    private List<Window> windows(Node node, String what) {
        List<Window> out = new ArrayList<>();
        for (Node w : yaml.list(node, what)) {
            Window window = window(w, yaml.fields(w, WINDOW_KEYS, "a window"), "a window");
            if (window != null) {
                out.add(window);
            }
        }
        return out;
    }

    private Clients clients(Node node) {
        Map<String, Node> f = yaml.fields(node, CLIENT_KEYS, "'clients'");
        Duration timeout = f.containsKey("timeout") ? yaml.positive(f.get("timeout")) : Clients.DEFAULT.timeout();
        Optional<Retrigger> retrigger = Optional.empty();
        if (f.containsKey("retrigger")) {
            Node r = f.get("retrigger");
            Map<String, Node> rf = yaml.fields(r, RETRIGGER_KEYS, "'retrigger'");
            Duration after = rf.containsKey("after") ? yaml.positive(rf.get("after")) : null;
            if (after == null) {
                yaml.problem(r, "'retrigger' needs 'after', how long a user waits before triggering again");
            } else {
                int times = rf.containsKey("times") ? yaml.integer(rf.get("times"), "times", 1) : 1;
                retrigger = Optional.of(new Retrigger(after, times));
            }
        }
        return new Clients(timeout == null ? Clients.DEFAULT.timeout() : timeout, retrigger);
    }

    private GantrySettings gantry(Node node) {
        GantrySettings d = GantrySettings.DEFAULT;
        Map<String, Node> f = yaml.fields(node, GANTRY_KEYS, "'gantry'");
        double dispatch = f.containsKey("dispatch_per_second")
                ? positiveNumber(f.get("dispatch_per_second"), "dispatch_per_second") : d.dispatchPerSecond();
        double ratio = d.budgetRatio();
        double burst = d.budgetBurst();
        if (f.containsKey("retry_budget")) {
            Map<String, Node> bf = yaml.fields(f.get("retry_budget"), BUDGET_KEYS, "'retry_budget'");
            ratio = bf.containsKey("ratio") ? fraction(bf.get("ratio"), "ratio") : ratio;
            burst = bf.containsKey("burst") ? yaml.number(bf.get("burst"), "burst") : burst;
        }
        Backoff backoff = d.backoff();
        if (f.containsKey("backoff")) {
            Map<String, Node> bf = yaml.fields(f.get("backoff"), BACKOFF_KEYS, "'backoff'");
            Duration base = bf.containsKey("base") ? yaml.positive(bf.get("base")) : backoff.base();
            Duration cap = bf.containsKey("cap") ? yaml.positive(bf.get("cap")) : backoff.cap();
            if (base != null && cap != null && cap.compareTo(base) < 0) {
                yaml.problem(f.get("backoff"), "the backoff's 'cap' cannot be below its 'base'");
            } else if (base != null && cap != null) {
                backoff = new Backoff(base, cap);
            }
        }
        DistressPause.Settings pause = d.pause();
        if (f.containsKey("pause")) {
            Map<String, Node> pf = yaml.fields(f.get("pause"), PAUSE_KEYS, "'pause'");
            Duration threshold = pf.containsKey("latency_threshold") ? yaml.positive(pf.get("latency_threshold"))
                    : pause.latencyThreshold();
            Duration quiet = pf.containsKey("quiet_for") ? yaml.duration(pf.get("quiet_for")) : pause.quietFor();
            double from = pf.containsKey("ramp_from") ? fraction(pf.get("ramp_from"), "ramp_from")
                    : pause.rampFrom();
            Duration over = pf.containsKey("ramp_over") ? yaml.duration(pf.get("ramp_over")) : pause.rampOver();
            if (from == 0) {
                yaml.problem(pf.get("ramp_from"), "'ramp_from' must be above 0, or work never resumes");
            } else if (threshold != null && quiet != null && over != null) {
                pause = new DistressPause.Settings(threshold, quiet, from, over);
            }
        }
        int breakerFailures = d.breakerFailures();
        Duration openFor = d.breakerOpenFor();
        if (f.containsKey("circuit_breaker")) {
            Map<String, Node> cf = yaml.fields(f.get("circuit_breaker"), BREAKER_KEYS, "'circuit_breaker'");
            breakerFailures = cf.containsKey("failures") ? yaml.integer(cf.get("failures"), "failures", 1)
                    : breakerFailures;
            Duration o = cf.containsKey("open_for") ? yaml.positive(cf.get("open_for")) : openFor;
            openFor = o == null ? openFor : o;
        }
        return new GantrySettings(dispatch, ratio, burst, backoff, pause, breakerFailures, openFor);
    }

    private BaselineRetries retries(Node node) {
        Map<String, Node> f = yaml.fields(node, RETRIES_KEYS, "'retries'");
        int attempts = f.containsKey("attempts") ? yaml.integer(f.get("attempts"), "attempts", 1)
                : BaselineRetries.DEFAULT.attempts();
        Duration every = f.containsKey("every") ? yaml.positive(f.get("every")) : BaselineRetries.DEFAULT.every();
        return new BaselineRetries(attempts, every == null ? BaselineRetries.DEFAULT.every() : every);
    }

    private Window window(Node node, Map<String, Node> f, String what) {
        Duration from = yaml.required(node, f, "from", what);
        Duration until = yaml.required(node, f, "until", what);
        if (from != null && until != null && until.compareTo(from) <= 0) {
            yaml.problem(f.get("until"), what + "'s 'until' must be after its 'from'");
            return null;
        }
        return from == null || until == null ? null : new Window(from, until);
    }

    private double positiveNumber(Node node, String key) {
        double v = yaml.number(node, key);
        if (v == 0) {
            yaml.problem(node, "'" + key + "' must be above 0");
        }
        return v;
    }

    private double fraction(Node node, String key) {
        double v = yaml.number(node, key);
        if (v > 1) {
            yaml.problem(node, "'" + key + "' must be between 0 and 1");
        }
        return Math.min(v, 1);
    }
}
