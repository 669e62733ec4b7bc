package dev.gantry.bench.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The trace the jobs write (see {@link Shape}): lines {@code start|end PIPELINE JOB NODE BUILD_NUM EPOCH_MILLIS}. A
 * job is a pipeline and a job name; an attempt of it is a build number (an infrastructure retry gets a new one); a
 * node is an attempt's node index. An attempt ran to completion when every node of the job ended in it.
 */
record Trace(Path file) {
    /**
     * What the trace says happened.
     *
     * @param nodesEnded    job nodes that ended at least once
     * @param ranTwice      jobs with two attempts that each ran to completion: the job's work was done twice
     * @param taskRanTwice  nodes that ended twice within one attempt: one task's work done twice
     * @param nodesRerun    nodes that ended in two attempts of a job that did not run to completion twice (a node
     *                      that had finished ran again because its job was retried, e.g. after a sibling node lost
     *                      its agent)
     * @param jobsRestarted jobs with more than one attempt started
     */
    record Counts(long nodesEnded, List<Twice> ranTwice, long taskRanTwice, List<Twice> nodesRerun,
                  long jobsRestarted) {
    }

    /**
     * A job, or one node of it ({@code node} null: the whole job), that ran to completion twice: its first completed
     * attempt, and when that attempt's last node (or that node) ended.
     */
    record Twice(String pipeline, String job, Integer node, long firstAttempt, long endedAtMillis) {
    }

    Counts counts() throws IOException {
        Map<String, Map<Long, Set<String>>> endsByJob = new HashMap<>(); // job → attempt → nodes ended
        Map<String, Long> lastEnd = new HashMap<>(); // job and attempt → last end, epoch ms
        Map<String, Set<String>> nodesByJob = new HashMap<>();
        Map<String, Set<Long>> startedAttempts = new HashMap<>();
        Map<String, Integer> endsByTask = new HashMap<>();
        Map<String, Set<Long>> attemptsByNode = new HashMap<>();
        Map<String, Long> firstEndByNode = new HashMap<>(); // job, node and attempt → its end, epoch ms
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.strip().split(" ");
            if (parts.length != 6) {
                continue; // a line cut short by a killed step is no run
            }
            String job = parts[1] + " " + parts[2];
            String node = parts[3];
            long attempt = Long.parseLong(parts[4]);
            nodesByJob.computeIfAbsent(job, j -> new HashSet<>()).add(node);
            if (parts[0].equals("start")) {
                startedAttempts.computeIfAbsent(job, j -> new HashSet<>()).add(attempt);
            } else {
                endsByJob.computeIfAbsent(job, j -> new HashMap<>()).computeIfAbsent(attempt, a -> new HashSet<>())
                        .add(node);
                lastEnd.merge(job + " " + attempt, Long.parseLong(parts[5]), Math::max);
                endsByTask.merge(job + " " + node + " " + attempt, 1, Integer::sum);
                attemptsByNode.computeIfAbsent(job + " " + node, n -> new HashSet<>()).add(attempt);
                firstEndByNode.merge(job + " " + node + " " + attempt, Long.parseLong(parts[5]), Math::min);
            }
        }
        List<Twice> twice = new ArrayList<>();
        endsByJob.forEach((job, attempts) -> {
            List<Long> completed = attempts.entrySet().stream()
                    .filter(a -> a.getValue().size() == nodesByJob.get(job).size()).map(Map.Entry::getKey)
                    .sorted(Comparator.naturalOrder()).toList();
            if (completed.size() > 1) {
                String[] parts = job.split(" ");
                twice.add(new Twice(parts[0], parts[1], null, completed.getFirst(),
                        lastEnd.get(job + " " + completed.getFirst())));
            }
        });
        Set<String> jobsTwice = new HashSet<>();
        twice.forEach(t -> jobsTwice.add(t.pipeline() + " " + t.job()));
        List<Twice> reruns = new ArrayList<>();
        attemptsByNode.forEach((node, attempts) -> {
            String[] parts = node.split(" ");
            if (attempts.size() > 1 && !jobsTwice.contains(parts[0] + " " + parts[1])) {
                long first = attempts.stream().min(Comparator.naturalOrder()).orElseThrow();
                reruns.add(new Twice(parts[0], parts[1], Integer.parseInt(parts[2]), first,
                        firstEndByNode.get(node + " " + first)));
            }
        });
        return new Counts(attemptsByNode.size(), twice, endsByTask.values().stream().filter(n -> n > 1).count(),
                reruns, startedAttempts.values().stream().filter(a -> a.size() > 1).count());
    }
}
