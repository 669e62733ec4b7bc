package dev.gantry.server.results;

import dev.gantry.server.http.Json;
import dev.gantry.server.http.ListJson;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/** {@code GET /api/v2/project/{slug}/{job_number}/tests}: a job's test results in CircleCI's shape. Thread-safe. */
final class TestRoutes {
    private final Jdbi jdbi;
    private final JobLookup jobs;

    TestRoutes(Jdbi jdbi, JobLookup jobs) {
        this.jdbi = jdbi;
        this.jobs = jobs;
    }

    void list(Context ctx) {
        JobResultsDao.Job job = jobs.find(ctx, "job_number");
        ResultPages.Position from = ResultPages.requested(ctx, "-1");
        int afterSeq = from.numericKey();
        List<JobResultsDao.TestCase> page = jdbi.withExtension(JobResultsDao.class, dao -> dao.tests(job.id(),
                from.node(), afterSeq, ResultPages.SIZE));
        var items = page.stream().map(t -> {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("message", t.message());
            item.put("source", "unknown");
            item.put("run_time", t.runTime());
            item.put("file", t.file());
            item.put("result", t.result());
            item.put("name", t.name());
            item.put("classname", t.classname());
            return item;
        }).toList();
        Json.respond(ctx, 200, new ListJson<>(items, page.isEmpty() ? null : ResultPages.next(page,
                page.getLast().nodeIndex(), Integer.toString(page.getLast().seq())).orElse(null)));
    }
}
