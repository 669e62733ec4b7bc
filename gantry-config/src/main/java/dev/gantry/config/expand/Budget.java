package dev.gantry.config.expand;

import dev.gantry.config.yaml.Pos;

/** Counts the nodes an expansion creates, so commands and parameters that multiply each other cannot run away. */
final class Budget {
    private final int max;
    private long used;

    Budget(int max) {
        this.max = max;
    }

    void spend(long nodes, Pos pos, Object path) {
        used += nodes;
        if (used > max) {
            throw new Abort(pos, String.valueOf(path), "the config expands to more than " + max + " nodes",
                    "look for commands or parameters that multiply each other's steps");
        }
    }
}
