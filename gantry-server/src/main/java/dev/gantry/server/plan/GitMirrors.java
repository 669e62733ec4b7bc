package dev.gantry.server.plan;

import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.project.RepositoryPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads configs from a bare mirror of each project's repository, kept under {@code root} as
 * {@code <project-id>.git}: the first fetch clones it ({@code git clone --mirror}, into a {@code .partial} directory
 * renamed when complete, so a half clone is never used), later ones update it ({@code git fetch --prune}), both with
 * the git command line (see {@link Git}), which brings the network, credentials and ssh. Fetches of one mirror are
 * coalesced ({@link CoalescedFetches}): a plan waits for a fetch that started after its pipeline was triggered, and
 * never runs a second one beside it. The ref or revision is then resolved and the config read in-process
 * ({@link MirrorReads}, JGit on the mirror, opened once per project and kept for the life of the server).
 *
 * <p>Fetching is a {@link ConfigFetchException#transientFailure() transient} failure (the network, the remote host);
 * a ref, revision or config that is not there is permanent. Thread-safe: one fetch of a mirror at a time, reads in
 * parallel with each other and with fetches (git updates refs atomically, and a plan reads only after the fetch
 * that serves it ended); mirrors of different projects are fetched in parallel.
 */
public final class GitMirrors implements ConfigSource {
    /** How long a clone or fetch may take. */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofMinutes(5);

    private static final Logger LOG = LoggerFactory.getLogger(GitMirrors.class);
    private static final Pattern REVISION = Pattern.compile("[0-9a-fA-F]{7,64}");

    private final Path root;
    private final Git git;
    private final Duration networkTimeout;
    private final InstantSource clock;
    private final RepositoryPolicy repositories;
    private final Map<UUID, Mirror> mirrors = new ConcurrentHashMap<>();

    /**
     * Mirrors under {@code root}, with {@code git} from the {@code PATH}, the default timeout and the system clock,
     * fetching only from what {@code repositories} allows.
     */
    public GitMirrors(Path root, RepositoryPolicy repositories) {
        this(root, "git", DEFAULT_NETWORK_TIMEOUT, InstantSource.system(), repositories);
    }

    /** @param clock the clock that stamps pipelines' creation, to which fetch start times are compared */
    GitMirrors(Path root, String executable, Duration networkTimeout, InstantSource clock,
               RepositoryPolicy repositories) {
        this.repositories = Objects.requireNonNull(repositories, "repositories");
        this.root = Objects.requireNonNull(root, "root");
        this.git = new Git(executable);
        this.networkTimeout = Objects.requireNonNull(networkTimeout, "networkTimeout");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The mirrors of a server whose home is {@code home}: {@code home/repos}. */
    public static GitMirrors under(Path home, RepositoryPolicy repositories) {
        return new GitMirrors(home.resolve("repos"), repositories);
    }

    /** Where project {@code projectId}'s mirror is. */
    Path mirror(UUID projectId) {
        return root.resolve(projectId + ".git");
    }

    @Override
    public FetchedConfig fetch(UUID projectId, String vcsUrl, GitRef ref, String revision, Instant notBefore)
            throws ConfigFetchException, InterruptedException {
        Objects.requireNonNull(notBefore, "notBefore");
        if (revision != null && !REVISION.matcher(revision).matches()) {
            throw ConfigFetchException.permanent("revision '" + revision + "' is not a commit id of 7-64 hex digits");
        }
        Mirror mirror = mirrors.computeIfAbsent(projectId, Mirror::new);
        // A trigger that names a commit the mirror already has (a rerun, a retrigger, a webhook for a commit
        // fetched before) needs no fetch: commits never change.
        if (revision == null || !mirror.cloned() || !mirror.reads().hasCommit(revision)) {
            mirror.fetches.awaitFetchSince(notBefore, () -> update(mirror, vcsUrl));
        }
        MirrorReads reads = mirror.reads();
        FetchedConfig config = reads.read(reads.resolve(ref != null ? ref : defaultBranch(mirror), revision));
        return new FetchedConfig(config.revision(), config.path(), config.text(), mirror.defaultBranch());
    }

    /** The branch the mirror's HEAD names: what a trigger without branch or tag builds. */
    private static GitRef defaultBranch(Mirror mirror) throws ConfigFetchException {
        String branch = mirror.defaultBranch();
        if (branch == null || !GitRef.validName(branch)) {
            throw ConfigFetchException.permanent("the repository's HEAD names no branch, so it has no default branch "
                    + "to build; trigger the pipeline with a \"branch\" or \"tag\"");
        }
        return GitRef.branch(branch);
    }

    /** One project's mirror: its fetches, and once it is cloned, the reads of it. */
    private final class Mirror {
        final Path dir;
        final CoalescedFetches fetches = new CoalescedFetches(clock);
        private volatile MirrorReads reads;
        private volatile String defaultBranch;

        Mirror(UUID projectId) {
            this.dir = mirror(projectId);
        }

        boolean cloned() {
            return reads != null || Files.isDirectory(dir);
        }

        /** The reads of the mirror, which must have been cloned; opened on first use. */
        MirrorReads reads() {
            MirrorReads opened = reads;
            if (opened == null) {
                synchronized (this) {
                    if (reads == null) {
                        reads = MirrorReads.open(dir);
                    }
                    opened = reads;
                }
            }
            return opened;
        }

        /**
         * The repository's default branch as the clone took it. Read once per project and process: it rarely
         * changes, and the plan builder asks on every plan.
         */
        String defaultBranch() {
            String branch = defaultBranch;
            if (branch == null) {
                branch = reads().defaultBranch();
                defaultBranch = branch;
            }
            return branch;
        }
    }

    /**
     * Clones or fetches the mirror. What git answered goes to the server's log only: the pipeline's error says that
     * the repository could not be fetched, so that a project cannot read what a host it names answers.
     */
    private void update(Mirror mirror, String vcsUrl) throws InterruptedException {
        // Again at each fetch: the name may resolve elsewhere now than when the project was made.
        Optional<String> refused = repositories.refusal(vcsUrl);
        if (refused.isPresent()) {
            throw ConfigFetchException.permanent("could not fetch the repository: its URL " + refused.get());
        }
        try {
            if (Files.isDirectory(mirror.dir)) {
                Git.Result fetched = git.run(null, networkTimeout,
                        List.of("--git-dir=" + mirror.dir, "fetch", "--prune", "--quiet", "origin"));
                if (!fetched.ok()) {
                    throw couldNotFetch(vcsUrl, fetched.error());
                }
                mirror.reads().refresh();
                return;
            }
            Files.createDirectories(root);
            Path partial = root.resolve(mirror.dir.getFileName() + ".partial");
            deleteRecursively(partial);
            Git.Result cloned = git.run(null, networkTimeout,
                    List.of("clone", "--mirror", "--quiet", "--", vcsUrl, partial.toString()));
            if (!cloned.ok()) {
                deleteRecursively(partial);
                throw couldNotFetch(vcsUrl, cloned.error());
            }
            Files.move(partial, mirror.dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (Git.GitFailure e) {
            throw couldNotFetch(vcsUrl, e.getMessage());
        } catch (IOException e) {
            throw ConfigFetchException.transientFailure("cannot write the mirror under " + root + ": " + e);
        }
    }

    private static ConfigFetchException couldNotFetch(String vcsUrl, String gitSaid) {
        String id = UUID.randomUUID().toString();
        LOG.warn("Could not fetch {} (error id {}): {}", RepositoryPolicy.withoutCredentials(vcsUrl), id, gitSaid);
        return ConfigFetchException.transientFailure("could not fetch the repository (the server's log has git's "
                + "answer under error id " + id + ")");
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
