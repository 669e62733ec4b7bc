package dev.gantry.server.status;

import java.time.Duration;
import java.util.Objects;

/**
 * One figure that decided a component's state: a service level indicator over a window, with the objective it is
 * held to. Immutable.
 *
 * @param name      stable, for JSON and code: {@value #ERROR_RATE}, {@value #START_LATENCY_P95},
 *                  {@value #QUEUE_AGE}, {@value #PLAN_LAG} or {@value #WRITE_LATENCY}
 * @param label     for people, e.g. "p95 start latency"
 * @param window    the window it was measured over, e.g. 5 minutes; null for a figure of this moment (the oldest
 *                  waiting job's age)
 * @param value     in {@code unit}: a ratio from 0 to 1, or milliseconds
 * @param unit      what {@code value} counts
 * @param events    how many requests, jobs or pipelines the figure is made of
 * @param objective the value above which the component is degraded, in {@code unit}; null when the figure is shown
 *                  for context only
 */
public record Sli(String name, String label, Duration window, double value, Unit unit, long events,
                  Double objective) {
    /** The share of requests (or triggers) answered 5xx, or of pipelines the server failed to plan. */
    public static final String ERROR_RATE = "error_rate";
    /** The 95th percentile of queued → started, counting jobs still waiting with their wait so far. */
    public static final String START_LATENCY_P95 = "start_latency_p95";
    /** How long the oldest job still waiting has waited. */
    public static final String QUEUE_AGE = "queue_age";
    /** How long the oldest pipeline still waiting for its plan has waited. */
    public static final String PLAN_LAG = "plan_lag";
    /** How long this server's last write to the database took, commit included. */
    public static final String WRITE_LATENCY = "write_latency";

    /** What {@link #value()} counts. */
    public enum Unit {
        /** From 0 to 1; shown as a percentage. */
        RATIO,
        /** Shown as a duration. */
        MILLISECONDS
    }

    public Sli {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(unit, "unit");
    }

    /** {@link #value()} for people: {@code 0.4 %} or {@code 7m12s}. */
    public String valueText() {
        return format(value);
    }

    /** {@link #objective()} for people, or null when there is none. */
    public String objectiveText() {
        return objective == null ? null : format(objective);
    }

    /** The window for people: {@code last 5 min}, or {@code now} for a figure of this moment. */
    public String windowText() {
        return window == null ? "now" : "last " + Texts.window(window);
    }

    /** True when the value is over its objective. */
    public boolean overObjective() {
        return objective != null && value > objective;
    }

    private String format(double v) {
        return switch (unit) {
            case RATIO -> Texts.percent(v);
            case MILLISECONDS -> Texts.duration(Duration.ofMillis(Math.round(v)));
        };
    }
}
