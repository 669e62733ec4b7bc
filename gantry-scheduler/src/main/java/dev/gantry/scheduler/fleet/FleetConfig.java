package dev.gantry.scheduler.fleet;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.Resources;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The fleet an autoscaler manages: its clusters, which images are pinned to which pool, how long an idle instance is
 * kept before it is scaled in, how long a type stays unavailable after the provider ran out of it, and how long an
 * instance may stay silent before it is replaced. Immutable.
 * Read it from YAML with {@link #parse} (the format is in docs/scheduler.md) or start from {@link #defaults()}.
 *
 * @param imagePins      image → pool; a key ending in {@code *} matches every image that starts with the rest
 * @param scaleInAfter   how long an instance must stay idle before it is drained (the cool-down)
 * @param unavailableFor   how long a type is skipped after "insufficient capacity"; the real wait is jittered by
 *                         ±{@value TypeAvailability#JITTER_PERCENT}% so that many servers do not re-probe together
 * @param provisionTimeout how long a launched instance may take to come up before it is given up and terminated
 * @param lostAfter        how long an instance that was up may be missing from the snapshot (its agent neither claims
 *                         nor heartbeats) before it is terminated and replaced, counted from the first round that
 *                         found it missing; after a gap between rounds of more than a quarter of it (no round could
 *                         run: the database was down) the count starts again, as nobody could be seen meanwhile
 * @param resourceClasses  the classes jobs may name ({@link ResourceClasses#defaults()} unless the file lists them)
 * @param orgLimits        how many jobs each organisation may run at once (none unless the file says)
 */
public record FleetConfig(List<Cluster> clusters, Map<String, String> imagePins, Duration scaleInAfter,
                          Duration unavailableFor, Duration provisionTimeout, Duration lostAfter,
                          ResourceClasses resourceClasses, OrgLimits orgLimits) {
    public static final Duration DEFAULT_SCALE_IN_AFTER = Duration.ofMinutes(5);
    public static final Duration DEFAULT_UNAVAILABLE_FOR = Duration.ofMinutes(3);
    public static final Duration DEFAULT_PROVISION_TIMEOUT = Duration.ofMinutes(10);
    /** Long enough for agents to come back after a database or network outage of a minute; short next to a job. */
    public static final Duration DEFAULT_LOST_AFTER = Duration.ofMinutes(2);

    public FleetConfig {
        clusters = List.copyOf(clusters);
        imagePins = Map.copyOf(new LinkedHashMap<>(imagePins));
        Objects.requireNonNull(scaleInAfter, "scaleInAfter");
        Objects.requireNonNull(unavailableFor, "unavailableFor");
        Objects.requireNonNull(provisionTimeout, "provisionTimeout");
        Objects.requireNonNull(lostAfter, "lostAfter");
        Objects.requireNonNull(resourceClasses, "resourceClasses");
        Objects.requireNonNull(orgLimits, "orgLimits");
        if (clusters.isEmpty()) {
            throw new IllegalArgumentException("a fleet needs at least one cluster");
        }
        if (scaleInAfter.isNegative() || unavailableFor.isNegative() || lostAfter.isNegative()
                || !provisionTimeout.isPositive()) {
            throw new IllegalArgumentException("durations cannot be negative, and the provision timeout must be"
                    + " positive");
        }
        var names = new HashSet<String>();
        for (Cluster c : clusters) {
            if (!names.add(c.name())) {
                throw new IllegalArgumentException("cluster '" + c.name() + "' is defined twice");
            }
        }
    }

    /** A fleet with the default silence deadline and resource classes, and no organisation limits. */
    public FleetConfig(List<Cluster> clusters, Map<String, String> imagePins, Duration scaleInAfter,
                       Duration unavailableFor, Duration provisionTimeout) {
        this(clusters, imagePins, scaleInAfter, unavailableFor, provisionTimeout, DEFAULT_LOST_AFTER,
                ResourceClasses.defaults(), OrgLimits.NONE);
    }

    /**
     * What {@code gantry up} runs when no fleet file is given: one cluster {@code local} in pool {@code default}
     * with {@code local-large} (8 vCPU, 16 GB) ranked before {@code local-medium} (4 vCPU, 8 GB), at least 1 and
     * at most 4 agents, a cool-down of 5 minutes, 3 minutes' rest for a type that ran out, 10 minutes for an
     * agent to register and 2 minutes of silence before an agent is replaced.
     */
    public static FleetConfig defaults() {
        return new FleetConfig(List.of(new Cluster("local", Instance.DEFAULT_POOL,
                List.of(local("local-large", 8, 16), local("local-medium", 4, 8)), 1, 4)),
                Map.of(), DEFAULT_SCALE_IN_AFTER, DEFAULT_UNAVAILABLE_FOR, DEFAULT_PROVISION_TIMEOUT);
    }

    /**
     * The fleet described by YAML {@code text}; {@code file} names it in messages.
     *
     * @throws FleetConfigException listing every problem with its file:line:column
     */
    public static FleetConfig parse(String file, String text) {
        return new FleetConfigParser(file).parse(text);
    }

    /**
     * The fleet described by a SnakeYAML node of a larger file (the simulator's scenario embeds a fleet); problems
     * name {@code file} at the node's own positions.
     *
     * @throws FleetConfigException listing every problem with its file:line:column
     */
    public static FleetConfig parse(String file, Node node) {
        return new FleetConfigParser(file).parse(node);
    }

    /** The pool jobs using {@code image} run in: an exact pin, else the longest matching prefix pin, else default. */
    public String poolForImage(String image) {
        String exact = imagePins.get(image);
        if (exact != null) {
            return exact;
        }
        String best = null;
        int bestLength = -1;
        for (var pin : imagePins.entrySet()) {
            String key = pin.getKey();
            if (key.endsWith("*") && image.startsWith(key.substring(0, key.length() - 1))
                    && key.length() > bestLength) {
                best = pin.getValue();
                bestLength = key.length();
            }
        }
        return best != null ? best : Instance.DEFAULT_POOL;
    }

    /** The clusters serving {@code pool}, in configuration order. */
    public List<Cluster> clustersOf(String pool) {
        return clusters.stream().filter(c -> c.pool().equals(pool)).toList();
    }

    public Optional<Cluster> cluster(String name) {
        return clusters.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    private static RankedType local(String name, int vcpu, int memoryGb) {
        // 10 GB of disk per vCPU, as the default resource classes ask.
        return new RankedType(new InstanceType(name, new Resources(vcpu, memoryGb * 1024, vcpu * 10)), 0);
    }
}
