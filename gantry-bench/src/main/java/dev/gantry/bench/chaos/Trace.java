package dev.gantry.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The trace the jobs write (see {@link Shape}): lines {@code start|end PIPELINE JOB NODE BUILD_NUM}. A job node is a
 * pipeline, a job name and a node index; an infrastructure retry is a new build number of the same node, so a node
 * with two {@code end} lines ran twice to completion, however the database recorded it.
 */
record Trace(Path file) {
    /** What the trace says happened. */
    record Counts(long nodesEnded, long ranTwice, long restarted) {
    }

    Counts counts() throws IOException {
        Map<String, Integer> starts = new HashMap<>();
        Map<String, Integer> ends = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.strip().split(" ");
            if (parts.length != 5) {
                continue; // a line cut short by a killed step is no run
            }
            String node = parts[1] + " " + parts[2] + " " + parts[3];
            (parts[0].equals("end") ? ends : starts).merge(node, 1, Integer::sum);
        }
        long twice = ends.values().stream().filter(n -> n > 1).count();
        long restarted = starts.values().stream().filter(n -> n > 1).count();
        return new Counts(ends.size(), twice, restarted);
    }
}
