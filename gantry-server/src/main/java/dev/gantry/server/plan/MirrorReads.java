package dev.gantry.server.plan;

import dev.gantry.server.pipeline.GitRef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.Locale;
import java.util.regex.Pattern;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.AbbreviatedObjectId;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevTree;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Reads refs, commits and configs from one bare mirror in-process with JGit, where a {@code git} process per read
 * cost more CPU than the plan around it. Opened once per mirror and kept: JGit rereads a ref file or the pack
 * directory when it changed on disk, and {@link #refresh()} after a fetch drops its cached refs, so reads see what
 * the command-line {@code git fetch} wrote. Thread-safe (a JGit {@link Repository} is; walkers are per call).
 * Repositories in the SHA-256 object format are refused: JGit reads only SHA-1 ones.
 */
final class MirrorReads {
    /** The largest config read; a bigger file is refused. */
    static final int MAX_CONFIG_BYTES = Git.MAX_OUTPUT;

    private static final Pattern FILE_MODE = Pattern.compile("1006[0-9]{2}|100755");

    private final Repository repository;

    private MirrorReads(Repository repository) {
        this.repository = repository;
    }

    /** Opens the bare repository at {@code gitDir}, which must exist. */
    static MirrorReads open(Path gitDir) {
        try {
            return new MirrorReads(new FileRepositoryBuilder().setGitDir(gitDir.toFile()).setMustExist(true)
                    .setup().build());
        } catch (IOException | IllegalArgumentException e) {
            throw ConfigFetchException.permanent("cannot read the mirror " + gitDir + ": " + e.getMessage());
        }
    }

    /** Forgets cached refs, after a fetch changed them. */
    void refresh() {
        repository.getRefDatabase().refresh();
    }

    /** True when the mirror has the commit {@code revision} (7-64 hex digits). */
    boolean hasCommit(String revision) {
        return commitNamed(revision) != null;
    }

    /** The full id of the commit {@code revision} names, or else the one {@code ref} points to. */
    String resolve(GitRef ref, String revision) {
        ObjectId commit = revision != null ? commitNamed(revision) : commitAt(ref);
        if (commit == null) {
            throw ConfigFetchException.permanent(revision != null
                    ? "revision " + revision + " is not a commit in the repository (or it is ambiguous)"
                    : (ref.kind() == GitRef.Kind.BRANCH ? "branch '" : "tag '") + ref.name()
                            + "' does not exist in the repository");
        }
        return commit.name();
    }

    /** The first of {@link ConfigSource#CONFIG_PATHS} present at {@code commit} (a full id), read. */
    ConfigSource.FetchedConfig read(String commit) {
        try (ObjectReader reader = repository.newObjectReader(); RevWalk walk = new RevWalk(reader)) {
            RevTree tree;
            try {
                tree = walk.parseCommit(ObjectId.fromString(commit)).getTree();
            } catch (IOException e) {
                throw ConfigFetchException.permanentAt(commit, "cannot list commit " + commit + ": " + e);
            }
            for (String path : ConfigSource.CONFIG_PATHS) {
                TreeWalk entry;
                try {
                    entry = TreeWalk.forPath(reader, path, tree);
                } catch (IOException e) {
                    throw ConfigFetchException.permanentAt(commit, "cannot list commit " + commit + ": " + e);
                }
                if (entry == null) {
                    continue;
                }
                try (entry) {
                    // As git ls-tree writes modes: six octal digits.
                    String mode = String.format(Locale.ROOT, "%06o", entry.getRawMode(0));
                    if (!FILE_MODE.matcher(mode).matches()) {
                        throw ConfigFetchException.permanentAt(commit, path + " at commit " + commit + " is not a "
                                + "regular file (mode " + mode + ")");
                    }
                    return new ConfigSource.FetchedConfig(commit, path, blobText(reader, entry.getObjectId(0), path,
                            commit), null);
                }
            }
        }
        throw ConfigFetchException.permanentAt(commit, "no config at commit " + commit + ": looked for "
                + String.join(" and ", ConfigSource.CONFIG_PATHS));
    }

    /**
     * What the mirror's HEAD names, as the clone took it from the repository: its default branch, or an empty string
     * when HEAD names no branch.
     */
    String defaultBranch() {
        try {
            Ref head = repository.exactRef(Constants.HEAD);
            return head != null && head.isSymbolic() ? Repository.shortenRefName(head.getTarget().getName()) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static String blobText(ObjectReader reader, ObjectId blob, String path, String commit) {
        try {
            ObjectLoader loader = reader.open(blob, Constants.OBJ_BLOB);
            if (loader.getSize() > MAX_CONFIG_BYTES) {
                throw ConfigFetchException.permanentAt(commit, path + " at commit " + commit + " is larger than "
                        + MAX_CONFIG_BYTES + " bytes");
            }
            return new String(loader.getCachedBytes(MAX_CONFIG_BYTES), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw ConfigFetchException.permanentAt(commit, "cannot read " + path + " at commit " + commit + ": " + e);
        }
    }

    /** The commit {@code ref} points to (peeling annotated tags), or null when there is none. */
    private ObjectId commitAt(GitRef ref) {
        String name = (ref.kind() == GitRef.Kind.BRANCH ? Constants.R_HEADS : Constants.R_TAGS) + ref.name();
        try (RevWalk walk = new RevWalk(repository)) {
            Ref found = repository.exactRef(name);
            return found == null || found.getObjectId() == null ? null : walk.parseCommit(found.getObjectId());
        } catch (MissingObjectException | IncorrectObjectTypeException e) {
            return null;
        } catch (IOException e) {
            throw ConfigFetchException.permanent("cannot read " + name + " in the mirror: " + e);
        }
    }

    /**
     * The one commit whose id is or starts with {@code revision} (annotated tags peeled), or null when there is none
     * or more than one; as {@code git rev-parse REVISION^{commit}}, which also passes over objects of other kinds.
     */
    private ObjectId commitNamed(String revision) {
        String hex = revision.toLowerCase(Locale.ROOT);
        if (hex.length() > Constants.OBJECT_ID_STRING_LENGTH) {
            return null;
        }
        try (ObjectReader reader = repository.newObjectReader(); RevWalk walk = new RevWalk(reader)) {
            Set<ObjectId> commits = new LinkedHashSet<>();
            for (ObjectId candidate : reader.resolve(AbbreviatedObjectId.fromString(hex))) {
                try {
                    commits.add(walk.parseCommit(candidate));
                } catch (MissingObjectException | IncorrectObjectTypeException notACommit) {
                    // another kind of object with that prefix: not what a revision names
                }
            }
            return commits.size() == 1 ? commits.iterator().next() : null;
        } catch (IOException e) {
            throw ConfigFetchException.permanent("cannot look up revision " + revision + " in the mirror: " + e);
        }
    }
}
