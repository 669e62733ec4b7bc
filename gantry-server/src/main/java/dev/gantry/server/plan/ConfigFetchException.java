package dev.gantry.server.plan;

import dev.gantry.server.ServerException;
import java.util.Optional;

/**
 * A pipeline's config could not be had: its repository could not be fetched, its ref or revision is not there, or
 * the commit has no config. The message is for the pipeline's {@code errors} and names what was looked for.
 */
public final class ConfigFetchException extends ServerException {
    private final boolean transientFailure;
    private final String revision;

    private ConfigFetchException(String message, boolean transientFailure, String revision) {
        super(message);
        this.transientFailure = transientFailure;
        this.revision = revision;
    }

    /** A failure another try may not see: fetching over the network, a timeout. */
    static ConfigFetchException transientFailure(String message) {
        return new ConfigFetchException(message, true, null);
    }

    /** A failure no retry fixes: a ref that does not exist, a commit without a config. */
    static ConfigFetchException permanent(String message) {
        return new ConfigFetchException(message, false, null);
    }

    /** A failure no retry fixes, found after the commit was resolved to {@code revision}. */
    static ConfigFetchException permanentAt(String revision, String message) {
        return new ConfigFetchException(message, false, revision);
    }

    /** True when trying again later may succeed. */
    public boolean transientFailure() {
        return transientFailure;
    }

    /** The full commit id the ref or revision resolved to before the failure, if it got that far. */
    public Optional<String> revision() {
        return Optional.ofNullable(revision);
    }
}
