package dev.gantry.server.ui;

import dev.gantry.server.job.JobDetailsJson;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.results.JobResults;
import dev.gantry.server.storage.OutputStore;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The job page's other tabs: its tests (failures first), its artifacts (downloaded through the session, served as the
 * API serves them) and a search of a node's output. {@link WebUi} has checked the session and the caller's role on
 * the project before any of these runs. Thread-safe.
 */
public final class JobTabs {
    /** Tests on one page; a larger suite pages on, failures always first. */
    public static final int TESTS_PER_PAGE = 200;
    /** Artifacts listed; the API lists every one. */
    public static final int MAX_ARTIFACTS = 1000;
    /** Matching lines listed; a search stops reading at the next one. */
    public static final int MAX_HITS = 200;
    private static final int MAX_FILTER = 200;

    private final JobResults results;
    private final OutputStore output;
    private final UiReads reads;

    JobTabs(JobResults results, OutputStore output, UiReads reads) {
        this.results = results;
        this.output = output;
        this.reads = reads;
    }

    /** What every tab shows above its content: the job, the node chosen, and the tab. */
    public record JobHeader(WebUi.Chrome chrome, ProjectSlug slug, JobDetailsJson job, int node, String tab) {
        public String base() {
            return "/jobs/" + slug + "/" + job.number();
        }
    }

    /** The tests tab: a page of tests matching {@code filter}, from the {@code offset}-th on. */
    public record TestsTab(JobHeader header, String filter, int offset, JobResults.TestPage page) {
        public List<JobResults.Test> failures() {
            return page.tests().stream().filter(JobResults.Test::failed).toList();
        }

        public List<JobResults.Test> others() {
            return page.tests().stream().filter(t -> !t.failed()).toList();
        }

        /** The page after this one, if there is one. */
        public String nextHref() {
            return offset + page.tests().size() < page.counts().matching() ? href(offset + TESTS_PER_PAGE) : null;
        }

        public String previousHref() {
            return offset > 0 ? href(Math.max(0, offset - TESTS_PER_PAGE)) : null;
        }

        private String href(int from) {
            return header.base() + "/tests?" + (filter.isEmpty() ? "" : "name=" + WebUi.url(filter) + "&") + "from="
                    + from;
        }

        /** The first line of a message, what a failure says at a glance. */
        public static String headline(String message) {
            if (message == null) {
                return "";
            }
            int newline = message.indexOf('\n');
            return newline < 0 ? message : message.substring(0, newline).stripTrailing();
        }

        /** Whether the message says more than its first line. */
        public static boolean hasMore(String message) {
            return message != null && message.indexOf('\n') >= 0;
        }

        /** Seconds as the UI writes durations. */
        public static String runTime(double seconds) {
            return Format.duration(Math.round(seconds * 1000));
        }
    }

    /** The artifacts tab. */
    public record ArtifactsTab(JobHeader header, JobResults.ArtifactList list) {
        /** The download through this session. */
        public String href(JobResults.Artifact artifact) {
            return header.base() + "/artifacts/" + artifact.nodeIndex() + "/" + artifact.encodedPath();
        }
    }

    /** A matching line: the step it belongs to ({@code -1}: before the first), its line number, what it shows. */
    public record SearchHit(int step, String stepName, long line, List<OutputSearch.Part> parts) {
    }

    /** The search tab: {@code hits} for {@code query}, or {@code error} saying why there was no search. */
    public record SearchTab(JobHeader header, String query, String error, List<SearchHit> hits, boolean more,
                            long searchedBytes) {
        /** Where the step of {@code hit} is on the job page: its output, which the browser opens. */
        public String stepHref(SearchHit hit) {
            return header.base() + "?node=" + header.node() + (hit.step() < 0 ? "" : "#step-" + hit.step()
                    + "-output");
        }

        public String nodeHref(int node) {
            return header.base() + "/search?node=" + node + "&q=" + WebUi.url(query);
        }
    }

    TestsTab tests(Context ctx, JobHeader header) {
        String filter = text(ctx, "name");
        int offset = Optional.ofNullable(ctx.queryParam("from")).filter(f -> f.matches("\\d{1,7}"))
                .map(Integer::parseInt).orElse(0);
        return new TestsTab(header, filter, offset, results.tests(header.job().id(), filter, offset,
                TESTS_PER_PAGE));
    }

    ArtifactsTab artifacts(Context ctx, JobHeader header) {
        return new ArtifactsTab(header, results.artifacts(header.job().id(), MAX_ARTIFACTS));
    }

    /** The artifact the path names, through the session; never cached, as any page of a session. */
    void download(Context ctx, JobDetailsJson job) throws IOException {
        ctx.header("Cache-Control", "no-store");
        results.download(ctx, job.id(), ctx.pathParam("node"), ctx.pathParam("path"));
    }

    SearchTab search(Context ctx, JobHeader header) throws IOException {
        String query = Optional.ofNullable(ctx.queryParam("q")).orElse("");
        if (query.isBlank()) {
            return new SearchTab(header, "", null, List.of(), false, 0);
        }
        if (query.length() > OutputSearch.MAX_QUERY) {
            return new SearchTab(header, query, "Search for at most " + OutputSearch.MAX_QUERY + " characters.",
                    List.of(), false, 0);
        }
        OutputSearch.Result found;
        try (InputStream in = output.read(header.job().id(), header.node(), 0)) {
            found = OutputSearch.search(in, query, MAX_HITS);
        }
        List<UiReads.StepOffset> offsets = reads.stepOffsets(header.job().id()).stream()
                .filter(o -> o.node() == header.node()).toList();
        Map<Integer, String> names = new HashMap<>();
        for (JobDetailsJson.Step step : header.job().steps()) {
            for (JobDetailsJson.Action action : step.actions()) {
                if (action.index() == header.node()) {
                    names.put(action.step(), action.name());
                }
            }
        }
        List<SearchHit> hits = new ArrayList<>();
        for (OutputSearch.Hit hit : found.hits()) {
            int step = stepAt(offsets, hit.offset());
            hits.add(new SearchHit(step, step < 0 ? "before the first step" : names.getOrDefault(step, "step " + step),
                    hit.line(), hit.parts()));
        }
        return new SearchTab(header, query, null, hits, found.more(), found.bytesRead());
    }

    /** The step whose output holds byte {@code offset}: the last to start at or before it; -1 before the first. */
    static int stepAt(List<UiReads.StepOffset> offsets, long offset) {
        int step = -1;
        long start = -1;
        for (UiReads.StepOffset o : offsets) {
            if (o.offset() <= offset && o.offset() >= start) {
                step = o.step();
                start = o.offset();
            }
        }
        return step;
    }

    private static String text(Context ctx, String parameter) {
        String value = Optional.ofNullable(ctx.queryParam(parameter)).orElse("").strip();
        return value.length() <= MAX_FILTER ? value : value.substring(0, MAX_FILTER);
    }
}
