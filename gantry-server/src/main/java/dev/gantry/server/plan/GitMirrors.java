package dev.gantry.server.plan;

import dev.gantry.server.pipeline.GitRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads configs from a bare mirror of each project's repository, kept under {@code root} as
 * {@code <project-id>.git}: the first fetch clones it ({@code git clone --mirror}, into a {@code .partial} directory
 * renamed when complete, so a half clone is never used), later ones update it ({@code git fetch --prune}). Then the
 * ref or revision is resolved to a commit and the config read at it, all with the git command line (see {@link Git}).
 *
 * <p>Fetching is a {@link ConfigFetchException#transientFailure() transient} failure (the network, the remote host);
 * a ref, revision or config that is not there is permanent. Thread-safe: calls for one project take turns on a lock,
 * so a mirror is never updated by two at once; calls for different projects mostly run in parallel.
 */
public final class GitMirrors implements ConfigSource {
    /** How long a clone or fetch may take. */
    public static final Duration DEFAULT_NETWORK_TIMEOUT = Duration.ofMinutes(5);
    /** How long a command on the mirror itself may take. */
    public static final Duration DEFAULT_LOCAL_TIMEOUT = Duration.ofSeconds(30);

    private static final int LOCK_STRIPES = 64;
    private static final Pattern REVISION = Pattern.compile("[0-9a-fA-F]{7,64}");
    private static final Pattern FULL_REVISION = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
    private static final Pattern FILE_MODE = Pattern.compile("1006[0-9]{2}|100755");

    private final Path root;
    private final Git git;
    private final Duration networkTimeout;
    private final Duration localTimeout;
    private final ReentrantLock[] locks = new ReentrantLock[LOCK_STRIPES];
    private final Map<UUID, String> defaultBranches = new ConcurrentHashMap<>();

    /** Mirrors under {@code root}, with {@code git} from the {@code PATH} and the default timeouts. */
    public GitMirrors(Path root) {
        this(root, "git", DEFAULT_NETWORK_TIMEOUT, DEFAULT_LOCAL_TIMEOUT);
    }

    GitMirrors(Path root, String executable, Duration networkTimeout, Duration localTimeout) {
        this.root = Objects.requireNonNull(root, "root");
        this.git = new Git(executable);
        this.networkTimeout = Objects.requireNonNull(networkTimeout, "networkTimeout");
        this.localTimeout = Objects.requireNonNull(localTimeout, "localTimeout");
        for (int i = 0; i < LOCK_STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /** The mirrors of a server whose home is {@code home}: {@code home/repos}. */
    public static GitMirrors under(Path home) {
        return new GitMirrors(home.resolve("repos"));
    }

    /** Where project {@code projectId}'s mirror is. */
    Path mirror(UUID projectId) {
        return root.resolve(projectId + ".git");
    }

    @Override
    public FetchedConfig fetch(UUID projectId, String vcsUrl, GitRef ref, String revision)
            throws ConfigFetchException, InterruptedException {
        Objects.requireNonNull(ref, "ref");
        if (revision != null && !REVISION.matcher(revision).matches()) {
            throw ConfigFetchException.permanent("revision '" + revision + "' is not a commit id of 7-64 hex digits");
        }
        ReentrantLock lock = locks[Math.floorMod(projectId.hashCode(), LOCK_STRIPES)];
        lock.lockInterruptibly();
        try {
            // A trigger that names a commit the mirror already has (a rerun, a retrigger, a webhook for a commit
            // fetched before) needs no fetch: commits never change.
            Path mirror = revision != null && has(mirror(projectId), revision) ? mirror(projectId)
                    : update(projectId, vcsUrl);
            String commit = resolve(mirror, ref, revision);
            FetchedConfig config = read(mirror, commit);
            return new FetchedConfig(config.revision(), config.path(), config.text(),
                    defaultBranches.computeIfAbsent(projectId, id -> defaultBranch(mirror)));
        } finally {
            lock.unlock();
        }
    }

    private Path update(UUID projectId, String vcsUrl) throws InterruptedException {
        Path mirror = mirror(projectId);
        try {
            if (Files.isDirectory(mirror)) {
                Git.Result fetched = git.run(null, networkTimeout,
                        List.of("--git-dir=" + mirror, "fetch", "--prune", "--quiet", "origin"));
                if (!fetched.ok()) {
                    throw ConfigFetchException.transientFailure("fetching the repository failed: " + fetched.error());
                }
                return mirror;
            }
            Files.createDirectories(root);
            Path partial = root.resolve(projectId + ".git.partial");
            deleteRecursively(partial);
            Git.Result cloned = git.run(null, networkTimeout,
                    List.of("clone", "--mirror", "--quiet", "--", vcsUrl, partial.toString()));
            if (!cloned.ok()) {
                deleteRecursively(partial);
                throw ConfigFetchException.transientFailure("cloning the repository failed: " + cloned.error());
            }
            Files.move(partial, mirror, StandardCopyOption.ATOMIC_MOVE);
            return mirror;
        } catch (Git.GitFailure e) {
            throw ConfigFetchException.transientFailure("fetching the repository failed: " + e.getMessage());
        } catch (IOException e) {
            throw ConfigFetchException.transientFailure("cannot write the mirror under " + root + ": " + e);
        }
    }

    private String resolve(Path mirror, GitRef ref, String revision) throws InterruptedException {
        // Never an option: a revision is hex digits, and a ref name cannot start with '-' (GitRef checks it).
        String spec = revision != null ? revision
                : (ref.kind() == GitRef.Kind.BRANCH ? "refs/heads/" : "refs/tags/") + ref.name();
        Git.Result resolved = local(mirror, List.of("rev-parse", "--verify", "--quiet", spec + "^{commit}"));
        String commit = resolved.text().strip();
        if (!resolved.ok() || !FULL_REVISION.matcher(commit).matches()) {
            throw ConfigFetchException.permanent(revision != null
                    ? "revision " + revision + " is not a commit in the repository (or it is ambiguous)"
                    : (ref.kind() == GitRef.Kind.BRANCH ? "branch '" : "tag '") + ref.name()
                            + "' does not exist in the repository");
        }
        return commit;
    }

    private FetchedConfig read(Path mirror, String commit) throws InterruptedException {
        List<String> listing = new ArrayList<>(List.of("ls-tree", "-z", "--full-tree", commit, "--"));
        listing.addAll(CONFIG_PATHS);
        Git.Result tree = local(mirror, listing);
        if (!tree.ok()) {
            throw ConfigFetchException.permanentAt(commit, "cannot list commit " + commit + ": " + tree.error());
        }
        Map<String, String[]> entries = new HashMap<>();
        for (String entry : tree.text().split("\0")) {
            int tab = entry.indexOf('\t');
            if (tab > 0) {
                entries.put(entry.substring(tab + 1), entry.substring(0, tab).split(" "));
            }
        }
        for (String path : CONFIG_PATHS) {
            String[] entry = entries.get(path);
            if (entry == null) {
                continue;
            }
            if (entry.length != 3 || !entry[1].equals("blob") || !FILE_MODE.matcher(entry[0]).matches()) {
                throw ConfigFetchException.permanentAt(commit, path + " at commit " + commit + " is not a regular "
                        + "file (mode " + entry[0] + ")");
            }
            Git.Result blob = local(mirror, List.of("cat-file", "blob", entry[2]));
            if (!blob.ok()) {
                throw ConfigFetchException.permanentAt(commit, "cannot read " + path + " at commit " + commit + ": "
                        + blob.error());
            }
            return new FetchedConfig(commit, path, blob.text(), null);
        }
        throw ConfigFetchException.permanentAt(commit, "no config at commit " + commit + ": looked for "
                + String.join(" and ", CONFIG_PATHS));
    }

    /** True when the mirror exists and has the commit {@code revision}. */
    private boolean has(Path mirror, String revision) throws InterruptedException {
        return Files.isDirectory(mirror)
                && local(mirror, List.of("cat-file", "-e", revision + "^{commit}")).ok();
    }

    /**
     * What the mirror's HEAD names, as the clone took it from the repository: its default branch. Read once per
     * project and process (it rarely changes, and the plan builder asks on every plan); empty string when HEAD names
     * no branch.
     */
    private String defaultBranch(Path mirror) {
        try {
            Git.Result head = local(mirror, List.of("symbolic-ref", "--quiet", "--short", "HEAD"));
            return head.ok() ? head.text().strip() : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        } catch (ConfigFetchException e) {
            return "";
        }
    }

    private Git.Result local(Path mirror, List<String> args) throws InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("--git-dir=" + mirror);
        command.addAll(args);
        try {
            return git.run(null, localTimeout, command);
        } catch (Git.GitFailure e) {
            throw ConfigFetchException.permanent(e.getMessage());
        }
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
