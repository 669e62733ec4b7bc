package dev.gantry.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The trace file the crash tests' jobs write: a line {@code start|end JOB_NAME JOB_NUMBER NANOS} as each job's step
 * begins and ends, so a test sees which jobs ran, how often, and whether two runs of one job overlapped.
 */
record JobTrace(Path file) {
    /** The trace's "start"/"end" words per job number, in order. */
    Map<Long, List<String>> runsByJobNumber() {
        Map<Long, List<String>> runs = new HashMap<>();
        for (String line : lines()) {
            String[] parts = line.split(" ");
            runs.computeIfAbsent(Long.parseLong(parts[2]), n -> new ArrayList<>()).add(parts[0]);
        }
        return runs;
    }

    /** How many lines start with {@code word} ("start" or "end"). */
    long count(String word) {
        return lines().stream().filter(l -> l.startsWith(word + " ")).count();
    }

    private List<String> lines() {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
