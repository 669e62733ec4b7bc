package dev.gantry.server.plan;

import dev.gantry.server.pipeline.GitRef;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Where a pipeline's config comes from: the project's repository at one commit. {@link GitMirrors} reads it from a
 * mirror of the repository; tests and other stores (a forge's API) can implement it too. Implementations are
 * thread-safe.
 */
public interface ConfigSource {
    /** The two places a config may be, in order: the first one present at the commit wins. */
    List<String> CONFIG_PATHS = List.of(".gantry/config.yml", ".circleci/config.yml");

    /**
     * The config of project {@code projectId} (whose repository is at {@code vcsUrl}) at {@code revision}, or when
     * that is null, at the commit {@code ref} points to as of {@code notBefore} or later: a source that caches the
     * repository serves it from any update that started after {@code notBefore}. A null {@code ref} means the
     * repository's default branch (the returned {@link FetchedConfig#defaultBranch()}, which must then name one).
     *
     * @param ref       the branch or tag, or null for the default branch
     * @param revision  a commit id of 7-64 hex digits as the trigger gave it, or null
     * @param notBefore when the pipeline was triggered: what was pushed before it must be seen
     * @throws ConfigFetchException  when the config cannot be had; {@link ConfigFetchException#transientFailure()}
     *                               says whether trying again later may help
     * @throws InterruptedException when the calling thread is interrupted
     */
    FetchedConfig fetch(UUID projectId, String vcsUrl, GitRef ref, String revision, Instant notBefore)
            throws ConfigFetchException, InterruptedException;

    /**
     * A config as read from the repository.
     *
     * @param revision      the full commit id it was read at (40 hex digits, or 64 in a SHA-256 repository)
     * @param path          where it was, one of {@link #CONFIG_PATHS}
     * @param defaultBranch the repository's default branch (what its HEAD names), or null if it names none
     */
    record FetchedConfig(String revision, String path, String text, String defaultBranch) {
    }
}
