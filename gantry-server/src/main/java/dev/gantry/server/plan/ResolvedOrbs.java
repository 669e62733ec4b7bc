package dev.gantry.server.plan;

import dev.gantry.config.orb.OrbResolver;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One compile's view of the server's orbs: it notes the exact version each reference resolved to, to be recorded on
 * the pipeline, and the first failure to ask (the database or the upstream registry down), which the compiler would
 * otherwise report as an error in the config. Used by one compile's thread.
 */
final class ResolvedOrbs implements OrbResolver {
    private final OrbResolver orbs;
    private final Map<String, String> resolved = new TreeMap<>();
    private RuntimeException failure;

    ResolvedOrbs(OrbResolver orbs) {
        this.orbs = orbs;
    }

    @Override
    public Optional<OrbSource> resolve(String namespace, String name, String version) {
        try {
            Optional<OrbSource> source = orbs.resolve(namespace, name, version);
            source.ifPresent(s -> resolved.put(namespace + "/" + name + "@" + version, s.version()));
            return source;
        } catch (RuntimeException e) {
            noteFailure(e);
            throw e;
        }
    }

    @Override
    public List<String> available(String namespace, String name) {
        try {
            return orbs.available(namespace, name);
        } catch (RuntimeException e) {
            noteFailure(e);
            throw e;
        }
    }

    @Override
    public String describe() {
        return orbs.describe();
    }

    @Override
    public String missingHint(String namespace, String name, String version) {
        return orbs.missingHint(namespace, name, version);
    }

    /** Each reference the config wrote ({@code circleci/node@5}) and the exact version it got. */
    Map<String, String> resolved() {
        return Map.copyOf(resolved);
    }

    /** The first failure to ask for an orb, if there was one: then the compile's result says nothing. */
    Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure);
    }

    private void noteFailure(RuntimeException e) {
        if (failure == null) {
            failure = e;
        }
    }
}
