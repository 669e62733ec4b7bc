package dev.gantry.server.retention;

import dev.gantry.server.DurationSetting;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How long caches, workspace layers and artifacts are kept after they are saved; CircleCI's defaults, 15, 15 and 30
 * days. Past that, {@link RetentionSweeper} deletes them, so a server that runs for months does not fill its disk.
 * The notification log (events, deliveries, attempts) is kept 30 days past each delivery's final state.
 * Checked when made, never replaced by a default. Immutable.
 *
 * @param caches        how long a cache entry is kept ({@value #CACHES_VARIABLE})
 * @param workspaces    how long a workspace layer is kept ({@value #WORKSPACES_VARIABLE})
 * @param artifacts     how long an artifact is kept ({@value #ARTIFACTS_VARIABLE})
 * @param notifications how long a delivered or dead delivery stays in the log ({@value #NOTIFICATIONS_VARIABLE})
 */
public record RetentionSettings(Duration caches, Duration workspaces, Duration artifacts, Duration notifications) {
    public static final String CACHES_VARIABLE = "GANTRY_RETENTION_CACHES";
    public static final String WORKSPACES_VARIABLE = "GANTRY_RETENTION_WORKSPACES";
    public static final String ARTIFACTS_VARIABLE = "GANTRY_RETENTION_ARTIFACTS";
    public static final String NOTIFICATIONS_VARIABLE = "GANTRY_RETENTION_NOTIFICATIONS";
    public static final Duration DEFAULT_CACHES = Duration.ofDays(15);
    public static final Duration DEFAULT_WORKSPACES = Duration.ofDays(15);
    public static final Duration DEFAULT_ARTIFACTS = Duration.ofDays(30);
    public static final Duration DEFAULT_NOTIFICATIONS = Duration.ofDays(30);
    /** Shorter would delete a cache a long workflow is about to restore. */
    public static final Duration MIN = Duration.ofHours(1);
    public static final Duration MAX = Duration.ofDays(3650);
    static final String RULE = "must be a duration like 12h or 30d, from 1h to 3650d";

    public RetentionSettings {
        Objects.requireNonNull(caches, "caches");
        Objects.requireNonNull(workspaces, "workspaces");
        Objects.requireNonNull(artifacts, "artifacts");
        Objects.requireNonNull(notifications, "notifications");
        if (!inRange(caches) || !inRange(workspaces) || !inRange(artifacts) || !inRange(notifications)) {
            throw new IllegalArgumentException("retention " + RULE + ", got " + caches + ", " + workspaces + ", "
                    + artifacts + " and " + notifications);
        }
    }

    /** Caches and workspace layers for 15 days, artifacts and the notification log for 30. */
    public static RetentionSettings defaults() {
        return new RetentionSettings(DEFAULT_CACHES, DEFAULT_WORKSPACES, DEFAULT_ARTIFACTS, DEFAULT_NOTIFICATIONS);
    }

    /**
     * Reads the settings from environment variables: unset means the default, set but empty or out of range is an
     * error naming the variable.
     */
    public static RetentionSettings fromEnvironment(Map<String, String> environment) {
        return new RetentionSettings(read(environment, CACHES_VARIABLE, DEFAULT_CACHES),
                read(environment, WORKSPACES_VARIABLE, DEFAULT_WORKSPACES),
                read(environment, ARTIFACTS_VARIABLE, DEFAULT_ARTIFACTS),
                read(environment, NOTIFICATIONS_VARIABLE, DEFAULT_NOTIFICATIONS));
    }

    private static Duration read(Map<String, String> environment, String variable, Duration fallback) {
        return DurationSetting.read(environment, variable, fallback, MIN, MAX, RULE);
    }

    private static boolean inRange(Duration d) {
        return d.compareTo(MIN) >= 0 && d.compareTo(MAX) <= 0;
    }
}
