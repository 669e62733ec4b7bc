package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.BlobStore;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;

/**
 * What an agent reports about a running task besides its output: steps, artifacts and test results. Each checks the
 * lease first (409 for a stale one). Thread-safe.
 */
final class TaskReportRoutes {
    /** The most test timings one job gets: a suite larger than this splits its remainder by the mean. */
    static final int MAX_TIMINGS = 50_000;
    private static final Set<String> TEST_RESULTS = Set.of("success", "failure", "error", "skipped");
    /** The most test results one request may carry; the agent sends more in several batches. */
    static final int MAX_TESTS_PER_BATCH = 5000;

    private final Jdbi jdbi;
    private final Leases leases;
    private final BlobStore blobs;
    private final InstantSource clock;

    TaskReportRoutes(Jdbi jdbi, Leases leases, BlobStore blobs, InstantSource clock) {
        this.jdbi = jdbi;
        this.leases = leases;
        this.blobs = blobs;
        this.clock = clock;
    }

    /** {@code PUT /tasks/{job_id}/{node_index}/steps/{step_index}}: records a step's start or end. */
    void step(Context ctx) {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        String indexText = ctx.pathParam("step_index");
        if (!indexText.matches("\\d{1,6}")) {
            throw ApiException.notFound("no step " + ApiException.quote(indexText));
        }
        StepUpdate update = StepUpdate.read(JsonBody.readObject(ctx), Integer.parseInt(indexText), now());
        recordStep(task, lease, update);
        Json.respond(ctx, 200, Map.of("step_index", Integer.parseInt(indexText)));
    }

    /**
     * Records a step's start or end for the holder of {@code lease}, as {@link #step} does. A repeat overwrites the
     * step with the same values.
     *
     * @throws ApiException 409 when {@code lease} is not the running task's current lease
     */
    void recordStep(TaskKey task, UUID lease, StepUpdate update) {
        jdbi.useTransaction(h -> {
            leases.require(h, task, lease);
            update.record(h, task);
        });
    }

    /** {@code PUT /tasks/{job_id}/{node_index}/artifacts/{path…}}: stores the body as an artifact; 201. */
    void artifact(Context ctx) throws IOException {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        String pathText = ctx.pathParam("path");
        BlobName path = BlobName.parse(pathText).orElseThrow(() -> ApiException.invalid("path",
                "the artifact path must be " + BlobName.RULE + ", got " + ApiException.quote(pathText)));
        leases.require(task, lease);
        long size;
        try (InputStream body = AgentRequests.upload(ctx)) {
            size = blobs.put(BlobLayout.artifact(task.jobId(), task.nodeIndex(), path), body);
        } catch (FileSystemException clash) {
            throw ApiException.conflict("artifact " + ApiException.quote(pathText) + " clashes with another "
                    + "artifact of this node (a file where a directory is, or the other way round)");
        }
        jdbi.useTransaction(h -> {
            leases.require(h, task, lease);
            h.attach(ArtifactDao.class).upsert(task.jobId(), task.nodeIndex(), path.toString(), size,
                    now().atOffset(ZoneOffset.UTC));
        });
        Json.respond(ctx, 201, Map.of("path", path.toString(), "size", size));
    }

    /** {@code POST /tasks/{job_id}/{node_index}/tests}: stores a batch of test results; 201. */
    void tests(Context ctx) {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        JsonNode array = JsonBody.readObject(ctx).get("tests");
        if (!(array instanceof ArrayNode tests) || tests.size() > MAX_TESTS_PER_BATCH) {
            throw ApiException.invalid("tests", "\"tests\" must be an array of at most " + MAX_TESTS_PER_BATCH
                    + " test results");
        }
        List<TestCaseDao.TestCase> cases = new ArrayList<>();
        for (JsonNode test : tests) {
            cases.add(testCase(test));
        }
        jdbi.useTransaction(h -> {
            leases.require(h, task, lease);
            TestCaseDao dao = h.attach(TestCaseDao.class);
            if (!cases.isEmpty()) {
                int first = dao.nextSeq(task.jobId(), task.nodeIndex());
                dao.insert(task.jobId(), task.nodeIndex(),
                        IntStream.range(first, first + cases.size()).boxed().toList(), cases);
            }
        });
        Json.respond(ctx, 201, Map.of("stored", cases.size()));
    }

    /**
     * {@code GET /tasks/{job_id}/{node_index}/timings}: the test durations of the job's latest successful run, which
     * the agent hands to {@code circleci tests split --split-by=timings}; an empty list before there is one.
     */
    void timings(Context ctx) {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        List<TestCaseDao.Timing> timings = jdbi.inTransaction(h -> {
            leases.require(h, task, lease);
            return h.attach(TestCaseDao.class).latestTimings(task.jobId(), MAX_TIMINGS);
        });
        List<Map<String, Object>> tests = new ArrayList<>();
        for (TestCaseDao.Timing t : timings) {
            Map<String, Object> test = new java.util.LinkedHashMap<>();
            test.put("file", t.file());
            test.put("classname", t.classname());
            test.put("name", t.name());
            test.put("run_time", t.runTime());
            tests.add(test);
        }
        Json.respond(ctx, 200, Map.of("tests", tests));
    }

    private static TestCaseDao.TestCase testCase(JsonNode node) {
        if (!(node instanceof ObjectNode test)) {
            throw ApiException.invalid("tests", "each of \"tests\" must be an object");
        }
        String result = AgentRequests.string(test, "result");
        if (!TEST_RESULTS.contains(result)) {
            throw ApiException.invalid("result", "\"result\" must be one of success, failure, error, skipped, got "
                    + ApiException.quote(result));
        }
        return new TestCaseDao.TestCase(
                AgentRequests.noNul("classname", AgentRequests.optionalString(test, "classname").orElse("")),
                AgentRequests.noNul("name", AgentRequests.string(test, "name")),
                AgentRequests.noNul("file", AgentRequests.optionalString(test, "file").orElse(null)),
                result, AgentRequests.seconds(test, "run_time", 0),
                AgentRequests.noNul("message", AgentRequests.optionalString(test, "message").orElse(null)));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
