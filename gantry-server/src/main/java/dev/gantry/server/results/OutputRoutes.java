package dev.gantry.server.results;

import dev.gantry.server.storage.OutputStore;
import io.javalin.http.Context;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

/**
 * {@code GET /api/v2/project/{slug}/job/{number}/output}: a job's output as text, or with {@code ?follow=true} as
 * server-sent events ({@link OutputFollower}). {@code ?node=N} picks one node of a parallel job; without it every node
 * comes one after another, each after a header line ({@link #header}). Thread-safe.
 */
final class OutputRoutes {
    private final JobLookup jobs;
    private final OutputStore output;
    private final OutputFollower follower;

    OutputRoutes(JobLookup jobs, OutputStore output, OutputFollower follower) {
        this.jobs = jobs;
        this.output = output;
        this.follower = follower;
    }

    /** The line before each node's output when a parallel job's nodes come together. */
    static String header(int nodeIndex, int parallelism) {
        return "=== node " + nodeIndex + " of " + parallelism + " ===";
    }

    /** The nodes to show: the one asked for, else all of them. */
    static List<Integer> nodes(int node, JobResultsDao.Job job) {
        return node >= 0 ? List.of(node) : IntStream.range(0, job.parallelism()).boxed().toList();
    }

    void output(Context ctx) throws IOException {
        JobResultsDao.Job job = jobs.find(ctx, "number");
        List<Integer> nodes = nodes(JobLookup.node(ctx, job), job);
        if ("true".equals(ctx.queryParam("follow"))) {
            follower.follow(ctx, job, nodes);
            return;
        }
        List<InputStream> parts = new ArrayList<>();
        try {
            for (int node : nodes) {
                if (nodes.size() > 1) {
                    String line = (parts.isEmpty() ? "" : "\n") + header(node, job.parallelism()) + "\n";
                    parts.add(new ByteArrayInputStream(line.getBytes(StandardCharsets.UTF_8)));
                }
                parts.add(output.read(job.id(), node, 0));
            }
        } catch (IOException | RuntimeException failure) {
            for (InputStream part : parts) {
                part.close();
            }
            throw failure;
        }
        ctx.contentType("text/plain; charset=utf-8");
        ctx.result(new SequenceInputStream(Collections.enumeration(parts)));
    }
}
