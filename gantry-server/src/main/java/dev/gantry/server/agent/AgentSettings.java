package dev.gantry.server.agent;

import static dev.gantry.server.DurationSetting.format;

import dev.gantry.server.DurationSetting;
import dev.gantry.server.InvalidServerSettingException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The timings of the agent protocol (docs/agent-protocol.md), checked when made: a bad value is an error naming its
 * rule, never replaced by a default. Read them with {@link #fromEnvironment} or start from {@link #defaults()} and
 * change one with the {@code with…} methods (tests use short lease timeouts). Immutable.
 *
 * @param heartbeatInterval how often an agent renews its lease ({@value #HEARTBEAT_INTERVAL_VARIABLE})
 * @param leaseTimeout      how long a lease lasts without renewal before its task is lost
 *                          ({@value #LEASE_TIMEOUT_VARIABLE}); at least twice the heartbeat interval, so that one
 *                          late heartbeat does not lose a task
 * @param pollTimeout       how long a claim waits for a task before answering 204 ({@value #POLL_TIMEOUT_VARIABLE})
 */
public record AgentSettings(Duration heartbeatInterval, Duration leaseTimeout, Duration pollTimeout) {
    public static final String HEARTBEAT_INTERVAL_VARIABLE = "GANTRY_AGENT_HEARTBEAT_INTERVAL";
    public static final String LEASE_TIMEOUT_VARIABLE = "GANTRY_AGENT_LEASE_TIMEOUT";
    public static final String POLL_TIMEOUT_VARIABLE = "GANTRY_AGENT_POLL_TIMEOUT";

    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(2);
    public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofSeconds(25);

    public static final Duration MIN_HEARTBEAT_INTERVAL = Duration.ofMillis(50);
    public static final Duration MAX_HEARTBEAT_INTERVAL = Duration.ofMinutes(1);
    public static final Duration MIN_LEASE_TIMEOUT = Duration.ofMillis(100);
    public static final Duration MAX_LEASE_TIMEOUT = Duration.ofHours(1);
    public static final Duration MIN_POLL_TIMEOUT = Duration.ofMillis(100);
    public static final Duration MAX_POLL_TIMEOUT = Duration.ofMinutes(5);

    public AgentSettings {
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(leaseTimeout, "leaseTimeout");
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        requireRange("heartbeat interval", heartbeatInterval, MIN_HEARTBEAT_INTERVAL, MAX_HEARTBEAT_INTERVAL);
        requireRange("lease timeout", leaseTimeout, MIN_LEASE_TIMEOUT, MAX_LEASE_TIMEOUT);
        requireRange("poll timeout", pollTimeout, MIN_POLL_TIMEOUT, MAX_POLL_TIMEOUT);
        if (leaseTimeout.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("the lease timeout must be at least twice the heartbeat interval, got "
                    + format(leaseTimeout) + " and " + format(heartbeatInterval));
        }
    }

    /** Heartbeat every 2 s, leases of 30 s, claims that wait up to 25 s. */
    public static AgentSettings defaults() {
        return new AgentSettings(DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_LEASE_TIMEOUT, DEFAULT_POLL_TIMEOUT);
    }

    public AgentSettings withHeartbeatInterval(Duration heartbeatInterval) {
        return new AgentSettings(heartbeatInterval, leaseTimeout, pollTimeout);
    }

    public AgentSettings withLeaseTimeout(Duration leaseTimeout) {
        return new AgentSettings(heartbeatInterval, leaseTimeout, pollTimeout);
    }

    public AgentSettings withPollTimeout(Duration pollTimeout) {
        return new AgentSettings(heartbeatInterval, leaseTimeout, pollTimeout);
    }

    /**
     * Reads the settings from environment variables, as durations like {@code 500ms}, {@code 30s}, {@code 2m} or
     * ISO-8601 ({@code PT30S}), as gantry-db reads its timeouts. Unset means the default; set but empty is an error.
     *
     * @throws InvalidServerSettingException naming the variable and its rule
     */
    public static AgentSettings fromEnvironment(Map<String, String> environment) {
        Duration heartbeat = read(environment, HEARTBEAT_INTERVAL_VARIABLE, DEFAULT_HEARTBEAT_INTERVAL,
                MIN_HEARTBEAT_INTERVAL, MAX_HEARTBEAT_INTERVAL);
        Duration lease = read(environment, LEASE_TIMEOUT_VARIABLE, DEFAULT_LEASE_TIMEOUT, MIN_LEASE_TIMEOUT,
                MAX_LEASE_TIMEOUT);
        Duration poll = read(environment, POLL_TIMEOUT_VARIABLE, DEFAULT_POLL_TIMEOUT, MIN_POLL_TIMEOUT,
                MAX_POLL_TIMEOUT);
        try {
            return new AgentSettings(heartbeat, lease, poll);
        } catch (IllegalArgumentException e) {
            throw new InvalidServerSettingException(LEASE_TIMEOUT_VARIABLE + " and " + HEARTBEAT_INTERVAL_VARIABLE
                    + ": " + e.getMessage());
        }
    }

    private static Duration read(Map<String, String> environment, String variable, Duration fallback, Duration min,
                                 Duration max) {
        return DurationSetting.read(environment, variable, fallback, min, max,
                "must be a duration like 500ms, 5s or 2m, from " + format(min) + " to " + format(max));
    }

    private static void requireRange(String what, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("the " + what + " must be from " + format(min) + " to " + format(max)
                    + ", got " + format(value));
        }
    }
}
