package dev.gantry.config.orb;

import java.util.List;
import java.util.Optional;

/**
 * Supplies the published source of registry orbs ({@code namespace/name@version}). Gantry cannot reach an orb
 * registry, so orbs come from somewhere local; implementations must be safe to call from several threads.
 */
public interface OrbResolver {

    /** An orb's source text and the file name that diagnostics inside it should carry. */
    record OrbSource(String file, String version, String text) {
    }

    /**
     * The orb matching {@code version}: an exact version, a prefix such as {@code 5} or {@code 5.1} (the highest
     * matching release), or {@code volatile} (the highest release).
     */
    Optional<OrbSource> resolve(String namespace, String name, String version);

    /** Versions on offer for an orb, for error messages; empty when none is. */
    List<String> available(String namespace, String name);

    /** Where the orbs come from, for error messages ("orb directory /x"). */
    String describe();

    /** Resolves nothing: every registry orb reference is an error that says how to supply the orb. */
    OrbResolver NONE = new OrbResolver() {
        @Override
        public Optional<OrbSource> resolve(String namespace, String name, String version) {
            return Optional.empty();
        }

        @Override
        public List<String> available(String namespace, String name) {
            return List.of();
        }

        @Override
        public String describe() {
            return "no orb directory";
        }
    };
}
