package dev.gantry.config.orb;

import java.util.List;
import java.util.Optional;

/**
 * Supplies the published source of registry orbs ({@code namespace/name@version}): a local directory, or the
 * server's orb store. Implementations must be safe to call from several threads.
 */
public interface OrbResolver {

    /** An orb's source text and the file name that diagnostics inside it should carry. */
    record OrbSource(String file, String version, String text) {
    }

    /** The orb matching {@code version}, chosen as {@link OrbVersions#choose} does. */
    Optional<OrbSource> resolve(String namespace, String name, String version);

    /** Versions on offer for an orb, for error messages; empty when none is. */
    List<String> available(String namespace, String name);

    /** Where the orbs come from, for error messages ("orb directory /x"). */
    String describe();

    /** How to make a missing orb available, for the error that it is not. */
    String missingHint(String namespace, String name, String version);

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
            return "this compile (no orb directory given)";
        }

        @Override
        public String missingHint(String namespace, String name, String version) {
            return "save its published source as DIR/" + namespace + "/" + name + "@" + version + ".yml and pass "
                    + "--orb-dir DIR, or run the config on a Gantry server, whose orb store serves it";
        }
    };
}
