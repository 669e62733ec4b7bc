package dev.gantry.server.status;

import dev.gantry.server.DurationSetting;
import dev.gantry.server.InvalidServerSettingException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How the status page measures: how often each server evaluates, the two windows, and the objectives job starts and
 * planning are held to. The error-rate thresholds are fixed ({@code StateRules}). Checked when made, never replaced
 * by a default. Immutable.
 *
 * @param evaluateEvery     how often each server reads the figures and recomputes the page
 *                          ({@value #EVALUATE_EVERY_VARIABLE}, default 10 s); a change shows within about this long
 * @param shortWindow       the window that decides the states ({@value #SHORT_WINDOW_VARIABLE}, default 5 min)
 * @param longWindow        the window shown beside it for context ({@value #LONG_WINDOW_VARIABLE}, default 60 min)
 * @param jobStartObjective the p95 of queued → started each resource class is held to
 *                          ({@value #JOB_START_OBJECTIVE_VARIABLE}, default 2 min)
 * @param planObjective     how long a pipeline may wait for its plan ({@value #PLAN_OBJECTIVE_VARIABLE}, default 1 min)
 */
public record StatusSettings(Duration evaluateEvery, Duration shortWindow, Duration longWindow,
                             Duration jobStartObjective, Duration planObjective) {
    public static final String EVALUATE_EVERY_VARIABLE = "GANTRY_STATUS_EVALUATE_EVERY";
    public static final String SHORT_WINDOW_VARIABLE = "GANTRY_STATUS_SHORT_WINDOW";
    public static final String LONG_WINDOW_VARIABLE = "GANTRY_STATUS_LONG_WINDOW";
    public static final String JOB_START_OBJECTIVE_VARIABLE = "GANTRY_STATUS_JOB_START_OBJECTIVE";
    public static final String PLAN_OBJECTIVE_VARIABLE = "GANTRY_STATUS_PLAN_OBJECTIVE";
    public static final Duration DEFAULT_EVALUATE_EVERY = Duration.ofSeconds(10);
    public static final Duration DEFAULT_SHORT_WINDOW = Duration.ofMinutes(5);
    public static final Duration DEFAULT_LONG_WINDOW = Duration.ofMinutes(60);
    public static final Duration DEFAULT_JOB_START_OBJECTIVE = Duration.ofMinutes(2);
    public static final Duration DEFAULT_PLAN_OBJECTIVE = Duration.ofMinutes(1);
    static final Duration MIN_EVALUATE_EVERY = Duration.ofMillis(100);
    static final Duration MAX_EVALUATE_EVERY = Duration.ofMinutes(1);
    static final Duration MIN_WINDOW = Duration.ofSeconds(1);
    static final Duration MAX_WINDOW = Duration.ofDays(1);
    static final Duration MIN_OBJECTIVE = Duration.ofMillis(100);
    static final Duration MAX_OBJECTIVE = Duration.ofHours(6);
    static final String EVALUATE_EVERY_RULE = "must be a duration like 10s, from 100ms to 1m";
    static final String WINDOW_RULE = "must be a duration like 5m or 1h, from 1s to 1d";
    static final String OBJECTIVE_RULE = "must be a duration like 2m, from 100ms to 6h";
    /** The rule that ties them together, as error messages state it. */
    public static final String ORDER_RULE = "the evaluation period must be shorter than the short window, and the "
            + "short window no longer than the long one";

    public StatusSettings {
        Objects.requireNonNull(evaluateEvery, "evaluateEvery");
        Objects.requireNonNull(shortWindow, "shortWindow");
        Objects.requireNonNull(longWindow, "longWindow");
        Objects.requireNonNull(jobStartObjective, "jobStartObjective");
        Objects.requireNonNull(planObjective, "planObjective");
        check("the evaluation period", evaluateEvery, MIN_EVALUATE_EVERY, MAX_EVALUATE_EVERY, EVALUATE_EVERY_RULE);
        check("the short window", shortWindow, MIN_WINDOW, MAX_WINDOW, WINDOW_RULE);
        check("the long window", longWindow, MIN_WINDOW, MAX_WINDOW, WINDOW_RULE);
        check("the job start objective", jobStartObjective, MIN_OBJECTIVE, MAX_OBJECTIVE, OBJECTIVE_RULE);
        check("the plan objective", planObjective, MIN_OBJECTIVE, MAX_OBJECTIVE, OBJECTIVE_RULE);
        if (evaluateEvery.compareTo(shortWindow) >= 0 || shortWindow.compareTo(longWindow) > 0) {
            throw new IllegalArgumentException(ORDER_RULE + ", got every " + DurationSetting.format(evaluateEvery)
                    + ", windows " + DurationSetting.format(shortWindow) + " and "
                    + DurationSetting.format(longWindow));
        }
    }

    /** Every 10 s over 5 and 60 minutes; job starts within 2 min at p95, plans within 1 min. */
    public static StatusSettings defaults() {
        return new StatusSettings(DEFAULT_EVALUATE_EVERY, DEFAULT_SHORT_WINDOW, DEFAULT_LONG_WINDOW,
                DEFAULT_JOB_START_OBJECTIVE, DEFAULT_PLAN_OBJECTIVE);
    }

    /**
     * Reads the settings from environment variables: unset means the default; set but empty, unreadable or out of
     * range is an error naming the variable.
     *
     * @throws InvalidServerSettingException naming the variable and its rule
     */
    public static StatusSettings fromEnvironment(Map<String, String> environment) {
        Duration every = DurationSetting.read(environment, EVALUATE_EVERY_VARIABLE, DEFAULT_EVALUATE_EVERY,
                MIN_EVALUATE_EVERY, MAX_EVALUATE_EVERY, EVALUATE_EVERY_RULE);
        Duration shortWindow = DurationSetting.read(environment, SHORT_WINDOW_VARIABLE, DEFAULT_SHORT_WINDOW,
                MIN_WINDOW, MAX_WINDOW, WINDOW_RULE);
        Duration longWindow = DurationSetting.read(environment, LONG_WINDOW_VARIABLE, DEFAULT_LONG_WINDOW,
                MIN_WINDOW, MAX_WINDOW, WINDOW_RULE);
        Duration jobStarts = DurationSetting.read(environment, JOB_START_OBJECTIVE_VARIABLE,
                DEFAULT_JOB_START_OBJECTIVE, MIN_OBJECTIVE, MAX_OBJECTIVE, OBJECTIVE_RULE);
        Duration plans = DurationSetting.read(environment, PLAN_OBJECTIVE_VARIABLE, DEFAULT_PLAN_OBJECTIVE,
                MIN_OBJECTIVE, MAX_OBJECTIVE, OBJECTIVE_RULE);
        try {
            return new StatusSettings(every, shortWindow, longWindow, jobStarts, plans);
        } catch (IllegalArgumentException e) {
            throw new InvalidServerSettingException(EVALUATE_EVERY_VARIABLE + ", " + SHORT_WINDOW_VARIABLE + " and "
                    + LONG_WINDOW_VARIABLE + ": " + e.getMessage());
        }
    }

    /** These settings evaluating every {@code evaluateEvery} over {@code shortWindow} and {@code longWindow}. */
    public StatusSettings withTimings(Duration evaluateEvery, Duration shortWindow, Duration longWindow) {
        return new StatusSettings(evaluateEvery, shortWindow, longWindow, jobStartObjective, planObjective);
    }

    /** These settings with other objectives for job starts and plans. */
    public StatusSettings withObjectives(Duration jobStartObjective, Duration planObjective) {
        return new StatusSettings(evaluateEvery, shortWindow, longWindow, jobStartObjective, planObjective);
    }

    private static void check(String what, Duration value, Duration min, Duration max, String rule) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(what + " " + rule + ", got " + DurationSetting.format(value));
        }
    }
}
