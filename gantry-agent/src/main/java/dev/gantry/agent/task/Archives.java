package dev.gantry.agent.task;

import dev.gantry.agent.executor.Tars;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * The {@code tar.gz} archives caches and workspace layers travel in (Apache Commons Compress). Directories, regular
 * files with their permission bits, and symbolic links (as links, never followed) are kept. Extraction refuses any
 * entry that would land outside the place its name maps to ({@code ../} tricks). Stateless and thread-safe.
 */
final class Archives {
    /** One tree to archive: {@code source} (a file or a directory) stored under the entry name {@code name}. */
    record Root(Path source, String name) {
    }

    private Archives() {
    }

    /** Writes {@code roots} into a new archive at {@code archive}; returns how many entries it holds. */
    static int create(Path archive, List<Root> roots) throws IOException {
        int count = 0;
        try (OutputStream file = Files.newOutputStream(archive);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(new BufferedOutputStream(file)))) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Root root : roots) {
                List<Path> paths;
                try (Stream<Path> walk = Files.walk(root.source())) {
                    paths = walk.sorted().toList();
                }
                for (Path path : paths) {
                    String relative = root.source().relativize(path).toString().replace('\\', '/');
                    String name = relative.isEmpty() ? root.name() : root.name() + "/" + relative;
                    Tars.add(tar, path, name);
                    count++;
                }
            }
        }
        return count;
    }

    /**
     * Extracts {@code archive}; {@code place} maps each entry name to where it goes and the directory it must stay
     * inside, or null to skip the entry. Later entries overwrite earlier files.
     */
    static int extract(Path archive, Function<String, Placement> place) throws IOException {
        int count = 0;
        try (InputStream file = Files.newInputStream(archive);
             TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(new BufferedInputStream(file)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                String name = entry.getName().replaceAll("/+$", "");
                Placement placement = place.apply(name);
                if (placement == null) {
                    continue;
                }
                Path target = placement.target().normalize();
                if (!target.startsWith(placement.within().normalize())) {
                    throw new IOException("archive entry '" + entry.getName() + "' would be written outside "
                            + placement.within());
                }
                write(tar, entry, target);
                count++;
            }
        }
        return count;
    }

    /** Where one entry goes, and the directory it must not escape. */
    record Placement(Path target, Path within) {
    }

    private static void write(TarArchiveInputStream tar, TarArchiveEntry entry, Path target) throws IOException {
        if (entry.isDirectory()) {
            Files.createDirectories(target);
            Tars.setMode(target, entry.getMode());
            return;
        }
        Files.createDirectories(target.getParent());
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("archive entry '" + entry.getName() + "' is a file where " + target + " is a directory");
        }
        Files.deleteIfExists(target);
        if (entry.isSymbolicLink()) {
            Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
            return;
        }
        Files.copy(tar, target);
        Tars.setMode(target, entry.getMode());
    }

    static boolean exists(Path path) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }
}
