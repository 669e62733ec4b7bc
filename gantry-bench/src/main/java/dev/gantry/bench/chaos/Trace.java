package dev.gantry.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The trace the jobs write (see {@link Shape}): lines {@code start|end PIPELINE JOB NODE BUILD_NUM}. A job is a
 * pipeline and a job name; an attempt of it is a build number (an infrastructure retry gets a new one); a node is an
 * attempt's node index. An attempt ran to completion when every node of the job ended in it.
 */
record Trace(Path file) {
    /**
     * What the trace says happened.
     *
     * @param nodesEnded       job nodes that ended at least once
     * @param jobsRanTwice     jobs with two attempts that each ran to completion: the job's work was done twice
     * @param taskRanTwice     nodes that ended twice within one attempt: one task's work done twice
     * @param nodesRerun       nodes that ended in two attempts (a node that had finished ran again because its
     *                         job was retried, e.g. after a sibling node lost its agent)
     * @param jobsRestarted    jobs with more than one attempt started
     */
    record Counts(long nodesEnded, long jobsRanTwice, long taskRanTwice, long nodesRerun, long jobsRestarted) {
    }

    Counts counts() throws IOException {
        Map<String, Map<String, Set<String>>> endsByJob = new HashMap<>(); // job → attempt → nodes ended
        Map<String, Set<String>> nodesByJob = new HashMap<>();
        Map<String, Set<String>> startedAttempts = new HashMap<>();
        Map<String, Integer> endsByTask = new HashMap<>();
        Map<String, Set<String>> attemptsByNode = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.strip().split(" ");
            if (parts.length != 5) {
                continue; // a line cut short by a killed step is no run
            }
            String job = parts[1] + " " + parts[2];
            String node = parts[3];
            String attempt = parts[4];
            nodesByJob.computeIfAbsent(job, j -> new HashSet<>()).add(node);
            if (parts[0].equals("start")) {
                startedAttempts.computeIfAbsent(job, j -> new HashSet<>()).add(attempt);
            } else {
                endsByJob.computeIfAbsent(job, j -> new HashMap<>()).computeIfAbsent(attempt, a -> new HashSet<>())
                        .add(node);
                endsByTask.merge(job + " " + node + " " + attempt, 1, Integer::sum);
                attemptsByNode.computeIfAbsent(job + " " + node, n -> new HashSet<>()).add(attempt);
            }
        }
        long jobsRanTwice = endsByJob.entrySet().stream().filter(e -> e.getValue().values().stream()
                .filter(nodes -> nodes.size() == nodesByJob.get(e.getKey()).size()).count() > 1).count();
        return new Counts(attemptsByNode.size(), jobsRanTwice,
                endsByTask.values().stream().filter(n -> n > 1).count(),
                attemptsByNode.values().stream().filter(a -> a.size() > 1).count(),
                startedAttempts.values().stream().filter(a -> a.size() > 1).count());
    }
}
