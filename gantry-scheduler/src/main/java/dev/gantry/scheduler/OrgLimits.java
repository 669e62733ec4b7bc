package dev.gantry.scheduler;

import java.util.Map;
import java.util.OptionalInt;

/**
 * How many jobs each organisation may run at once. An organisation without an entry is unlimited. Running jobs count
 * on every instance, draining ones included, since they still use what the organisation paid for.
 */
public record OrgLimits(Map<String, Integer> maxConcurrentJobs) {
    public static final OrgLimits NONE = new OrgLimits(Map.of());

    public OrgLimits {
        maxConcurrentJobs = Map.copyOf(maxConcurrentJobs);
        maxConcurrentJobs.forEach((org, max) -> {
            if (max < 0) {
                throw new IllegalArgumentException("organisation " + org + " cannot run at most " + max + " jobs");
            }
        });
    }

    public OptionalInt limitOf(String organization) {
        Integer max = maxConcurrentJobs.get(organization);
        return max == null ? OptionalInt.empty() : OptionalInt.of(max);
    }
}
