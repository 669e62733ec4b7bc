package dev.gantry.config;

/**
 * Bounds that keep hostile or runaway configs from hanging the compiler or exhausting memory. Each breach is a
 * diagnostic naming the limit, never an exception.
 *
 * @param maxBytes          largest config (or orb) file accepted, in bytes of UTF-8
 * @param maxNodes          most YAML nodes a file may expand to once aliases are followed (billion laughs)
 * @param maxDepth          deepest nesting of YAML collections
 * @param maxJobs           most job instances in one workflow after matrix expansion
 * @param maxExpansionDepth deepest chain of command invocations and parameter substitutions
 * @param maxExpandedNodes  most nodes the expanded jobs of a whole config may hold
 */
public record Limits(int maxBytes, int maxNodes, int maxDepth, int maxJobs, int maxExpansionDepth, int maxExpandedNodes) {

    public static final int DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
    public static final int DEFAULT_MAX_NODES = 1_000_000;
    public static final int DEFAULT_MAX_DEPTH = 64;
    public static final int DEFAULT_MAX_JOBS = 2_000;
    public static final int DEFAULT_MAX_EXPANSION_DEPTH = 32;
    public static final int DEFAULT_MAX_EXPANDED_NODES = 2_000_000;

    public static final Limits DEFAULTS = new Limits(DEFAULT_MAX_BYTES, DEFAULT_MAX_NODES, DEFAULT_MAX_DEPTH,
            DEFAULT_MAX_JOBS, DEFAULT_MAX_EXPANSION_DEPTH, DEFAULT_MAX_EXPANDED_NODES);

    public Limits {
        positive("maxBytes", maxBytes);
        positive("maxNodes", maxNodes);
        positive("maxDepth", maxDepth);
        positive("maxJobs", maxJobs);
        positive("maxExpansionDepth", maxExpansionDepth);
        positive("maxExpandedNodes", maxExpandedNodes);
    }

    private static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, got " + value);
        }
    }
}
