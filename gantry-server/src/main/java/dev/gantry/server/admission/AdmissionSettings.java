package dev.gantry.server.admission;

import dev.gantry.server.NumberSetting;
import java.util.Map;
import java.util.Objects;

/**
 * How much each caller may ask of the API, and when the server counts as overloaded. Checked when made, never replaced
 * by a default. Immutable.
 *
 * @param api            per API token (admin or user): {@value #API_RATE_VARIABLE} requests a second,
 *                       {@value #API_BURST_VARIABLE} at once (default 50/s, 500)
 * @param agent          per agent credential on the agent protocol: {@value #AGENT_RATE_VARIABLE},
 *                       {@value #AGENT_BURST_VARIABLE} (default 100/s, 1,000)
 * @param anonymous      per client address without a token or session (web pages, the status page):
 *                       {@value #ANONYMOUS_RATE_VARIABLE}, {@value #ANONYMOUS_BURST_VARIABLE} (default 20/s, 200);
 *                       signed-in pages count per session at the API token's rate
 * @param shedInFlight   the server is overloaded with this many requests under way at once
 *                       ({@value #SHED_IN_FLIGHT_VARIABLE}, default 64), not counting agents, triggers and streams
 * @param shedPoolWaiters ... or with this many requests waiting for a database connection of the main pool
 *                       ({@value #SHED_POOL_WAITERS_VARIABLE}, default 10)
 */
public record AdmissionSettings(RateLimiter.Limit api, RateLimiter.Limit agent, RateLimiter.Limit anonymous,
                                int shedInFlight, int shedPoolWaiters) {
    public static final String API_RATE_VARIABLE = "GANTRY_RATE_LIMIT_API";
    public static final String API_BURST_VARIABLE = "GANTRY_RATE_LIMIT_API_BURST";
    public static final String AGENT_RATE_VARIABLE = "GANTRY_RATE_LIMIT_AGENT";
    public static final String AGENT_BURST_VARIABLE = "GANTRY_RATE_LIMIT_AGENT_BURST";
    public static final String ANONYMOUS_RATE_VARIABLE = "GANTRY_RATE_LIMIT_ANONYMOUS";
    public static final String ANONYMOUS_BURST_VARIABLE = "GANTRY_RATE_LIMIT_ANONYMOUS_BURST";
    public static final String SHED_IN_FLIGHT_VARIABLE = "GANTRY_SHED_IN_FLIGHT";
    public static final String SHED_POOL_WAITERS_VARIABLE = "GANTRY_SHED_POOL_WAITERS";

    public static final RateLimiter.Limit DEFAULT_API = new RateLimiter.Limit(50, 500);
    public static final RateLimiter.Limit DEFAULT_AGENT = new RateLimiter.Limit(100, 1_000);
    public static final RateLimiter.Limit DEFAULT_ANONYMOUS = new RateLimiter.Limit(20, 200);
    public static final int DEFAULT_SHED_IN_FLIGHT = 64;
    public static final int DEFAULT_SHED_POOL_WAITERS = 10;
    static final String RATE_RULE = "must be a number of requests per second from 0.01 to 1000000";
    static final String BURST_RULE = "must be a whole number of requests from 1 to 1000000";
    static final String SHED_RULE = "must be a whole number from 1 to 1000000";

    public AdmissionSettings {
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(anonymous, "anonymous");
        if (shedInFlight < 1 || shedPoolWaiters < 1) {
            throw new IllegalArgumentException("the overload thresholds " + SHED_RULE + ", got " + shedInFlight
                    + " and " + shedPoolWaiters);
        }
    }

    public static AdmissionSettings defaults() {
        return new AdmissionSettings(DEFAULT_API, DEFAULT_AGENT, DEFAULT_ANONYMOUS, DEFAULT_SHED_IN_FLIGHT,
                DEFAULT_SHED_POOL_WAITERS);
    }

    /**
     * Reads the settings from environment variables: unset means the default.
     *
     * @throws dev.gantry.server.InvalidServerSettingException naming the variable and its rule
     */
    public static AdmissionSettings fromEnvironment(Map<String, String> environment) {
        return new AdmissionSettings(
                limit(environment, API_RATE_VARIABLE, API_BURST_VARIABLE, DEFAULT_API),
                limit(environment, AGENT_RATE_VARIABLE, AGENT_BURST_VARIABLE, DEFAULT_AGENT),
                limit(environment, ANONYMOUS_RATE_VARIABLE, ANONYMOUS_BURST_VARIABLE, DEFAULT_ANONYMOUS),
                whole(environment, SHED_IN_FLIGHT_VARIABLE, DEFAULT_SHED_IN_FLIGHT),
                whole(environment, SHED_POOL_WAITERS_VARIABLE, DEFAULT_SHED_POOL_WAITERS));
    }

    /** These settings with other rate limits. */
    public AdmissionSettings withLimits(RateLimiter.Limit api, RateLimiter.Limit agent, RateLimiter.Limit anonymous) {
        return new AdmissionSettings(api, agent, anonymous, shedInFlight, shedPoolWaiters);
    }

    /** These settings with other overload thresholds. */
    public AdmissionSettings withShedding(int shedInFlight, int shedPoolWaiters) {
        return new AdmissionSettings(api, agent, anonymous, shedInFlight, shedPoolWaiters);
    }

    private static RateLimiter.Limit limit(Map<String, String> environment, String rate, String burst,
                                           RateLimiter.Limit fallback) {
        return new RateLimiter.Limit(NumberSetting.read(environment, rate, fallback.perSecond(), 0.01, 1e6, RATE_RULE),
                (int) NumberSetting.read(environment, burst, fallback.burst(), 1, 1e6, BURST_RULE));
    }

    private static int whole(Map<String, String> environment, String variable, int fallback) {
        return (int) NumberSetting.read(environment, variable, fallback, 1, 1e6, SHED_RULE);
    }
}
