package dev.gantry.agent.executor;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Tar entries as the agent writes and reads them: plain tar streams between the host and a container (what the
 * Docker API's archive endpoint sends, and what the image's {@code tar} extracts), and the entries of the
 * {@code tar.gz} caches and workspace layers. Directories, files with their permission bits and symbolic links (never
 * followed) are kept; an entry that would land outside the target directory is refused. Stateless and thread-safe.
 */
public final class Tars {
    private Tars() {
    }

    /** Writes every entry under {@code tree} (not {@code tree} itself) into a new tar at {@code archive}. */
    public static void create(Path tree, Path archive) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(tree)) {
            paths = walk.filter(p -> !p.equals(tree)).sorted().toList();
        }
        try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(archive));
             TarArchiveOutputStream tar = new TarArchiveOutputStream(file)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Path path : paths) {
                add(tar, path, tree.relativize(path).toString());
            }
        }
    }

    /**
     * Adds {@code path} (not what is under it) as the entry {@code name}: a symbolic link as a link, a directory or a
     * file with its permission bits and no owner (whoever extracts it owns it).
     */
    public static void add(TarArchiveOutputStream tar, Path path, String name) throws IOException {
        if (Files.isSymbolicLink(path)) {
            TarArchiveEntry entry = new TarArchiveEntry(name, TarArchiveEntry.LF_SYMLINK);
            entry.setLinkName(Files.readSymbolicLink(path).toString());
            tar.putArchiveEntry(entry);
            tar.closeArchiveEntry();
            return;
        }
        boolean directory = Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
        TarArchiveEntry entry = new TarArchiveEntry(path, directory ? name + "/" : name, LinkOption.NOFOLLOW_LINKS);
        entry.setMode((directory ? 040000 : 0100000) | mode(path));
        entry.setUserId(0);
        entry.setGroupId(0);
        entry.setUserName("");
        entry.setGroupName("");
        tar.putArchiveEntry(entry);
        if (!directory) {
            Files.copy(path, tar);
        }
        tar.closeArchiveEntry();
    }

    /** Extracts the tar on {@code in} under {@code target}, which must exist. */
    public static void extract(InputStream in, Path target) throws IOException {
        Path root = target.toAbsolutePath().normalize();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path to = root.resolve(entry.getName()).normalize();
                if (!to.startsWith(root)) {
                    throw new IOException("archive entry '" + entry.getName() + "' would be written outside " + root);
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(to);
                    setMode(to, entry.getMode() | 0700);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(to.getParent());
                    Files.deleteIfExists(to);
                    Files.createSymbolicLink(to, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Path source = root.resolve(entry.getLinkName()).normalize();
                    if (!source.startsWith(root)) {
                        throw new IOException("archive hard link '" + entry.getName() + "' points outside " + root);
                    }
                    Files.createDirectories(to.getParent());
                    Files.deleteIfExists(to);
                    Files.copy(source, to);
                } else if (entry.isFile()) {
                    Files.createDirectories(to.getParent());
                    Files.deleteIfExists(to);
                    Files.copy(tar, to);
                    setMode(to, entry.getMode());
                }
                // devices, fifos and sockets are not files a step can store: skipped
            }
        }
    }

    /** The permission bits of {@code path} (0755 or 0644 on a file system without them). */
    public static int mode(Path path) throws IOException {
        try {
            int mode = 0;
            for (PosixFilePermission p : Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)) {
                mode |= 1 << (8 - p.ordinal());
            }
            return mode;
        } catch (UnsupportedOperationException e) {
            return Files.isDirectory(path) ? 0755 : 0644;
        }
    }

    /**
     * Sets {@code path}'s permission bits to {@code mode}, its owner keeping read and write (or the task's directory
     * could not be removed afterwards); nothing on a file system without them.
     */
    public static void setMode(Path path, int mode) throws IOException {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission p : PosixFilePermission.values()) {
            if ((mode & (1 << (8 - p.ordinal()))) != 0) {
                permissions.add(p);
            }
        }
        permissions.add(PosixFilePermission.OWNER_READ);
        permissions.add(PosixFilePermission.OWNER_WRITE);
        try {
            Files.setPosixFilePermissions(path, permissions);
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: keep the defaults
        }
    }
}
