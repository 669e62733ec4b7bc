package dev.gantry.bench.e2e;

import dev.gantry.bench.Suite;
import dev.gantry.cli.client.GantryClient;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench ui}: how long the web UI's pages take with 10,000 pipelines in the database (quick: 1,000). The
 * pipelines are made the way users make them: triggered through the API on a {@link GantryRig} (server and four
 * agents as processes, embedded PostgreSQL) and run to their end by the agents, one in ten on a branch whose job
 * fails. Then a signed-in session reads each page over loopback, round-robin, and the time from sending the request
 * to the last byte of the answer is taken: the server's time plus a loopback round trip. The jobs store no test
 * results, so the insights pages here read workflows and jobs; InsightPagesBrowserIT times them over 60,000 results.
 * Ends with {@code RESULT pipelines=N worst_p95_ms=… PAGE_p50_ms=… PAGE_p95_ms=…}.
 */
public final class UiSuite implements Suite {
    private static final String FAILING = GantryRig.CONFIG.replace("command: \"true\"", "command: \"false\"");
    /** Unfinished pipelines kept triggered while the data is made: enough to keep four agents busy. */
    private static final int BACKLOG = 40;

    @Override
    public String name() {
        return "ui";
    }

    @Override
    public String description() {
        return "web UI page times with 10,000 pipelines in the database, made through the API and run by agents";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        int pipelines = quick ? 1_000 : 10_000;
        int samples = quick ? 30 : 100;
        try (GantryRig rig = GantryRig.start(E2eSuite.AGENTS, "shell")) {
            rig.branch("feature", FAILING);
            long began = System.nanoTime();
            make(rig, pipelines, out);
            out.printf(Locale.ROOT, "made %d pipelines in %.0f s%n", pipelines, (System.nanoTime() - began) / 1e9);

            HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
            String cookie = signIn(http, rig);
            Map<String, String> pages = pages(http, rig, cookie, pipelines);
            Map<String, List<Double>> times = new LinkedHashMap<>();
            pages.keySet().forEach(page -> times.put(page, new ArrayList<>()));
            for (int round = -samples / 5; round < samples; round++) { // the first fifth warms the server up
                for (Map.Entry<String, String> page : pages.entrySet()) {
                    long sent = System.nanoTime();
                    read(http, rig, cookie, page.getValue());
                    if (round >= 0) {
                        times.get(page.getKey()).add((System.nanoTime() - sent) / 1e6);
                    }
                }
            }
            return report(pipelines, samples, pages, times, out);
        }
    }

    /** Triggers {@code count} pipelines, one in ten on the failing branch, and waits until all have ended. */
    private static void make(GantryRig rig, int count, PrintStream out) throws Exception {
        GantryClient api = rig.client();
        long before = rig.finishedWorkflows();
        int triggered = 0;
        long done = 0;
        long reported = System.nanoTime();
        while (done < count) {
            for (; triggered < count && triggered - done < BACKLOG; triggered++) {
                GantryClient.Answer answer = api.post("/api/v2/project/" + GantryRig.SLUG + "/pipeline",
                        Map.of("branch", triggered % 10 == 9 ? "feature" : "main"));
                if (!answer.ok()) {
                    throw new IllegalStateException("trigger: " + answer.message());
                }
            }
            Thread.sleep(100);
            done = rig.finishedWorkflows() - before;
            if (System.nanoTime() - reported > 30e9) {
                out.printf("  %d of %d pipelines ended%n", done, count);
                reported = System.nanoTime();
            }
        }
    }

    /** The pages read, by name: each kind of page, and the pipelines page at its most expensive filter and offset. */
    private static Map<String, String> pages(HttpClient http, GantryRig rig, String cookie, int pipelines)
            throws Exception {
        String project = "/pipelines/" + GantryRig.SLUG;
        String middle = project + "/" + pipelines / 2;
        Matcher job = Pattern.compile("href=\"(/jobs/[^\"]+/\\d+)\"").matcher(read(http, rig, cookie, middle));
        if (!job.find()) {
            throw new IllegalStateException("pipeline " + pipelines / 2 + "'s page links no job");
        }
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("projects", "/projects");
        pages.put("pipelines", project);
        pages.put("pipelines_older", project + "?before=" + pipelines / 2);
        pages.put("pipelines_branch", project + "?branch=feature");
        pages.put("pipelines_no_match", project + "?branch=no-such-branch");
        pages.put("pipeline", middle);
        pages.put("job", job.group(1));
        pages.put("insights", "/insights/" + GantryRig.SLUG);
        pages.put("insights_90_days", "/insights/" + GantryRig.SLUG + "?days=90");
        pages.put("fleet", "/fleet");
        pages.put("queues", "/queues");
        pages.put("usage", "/usage");
        pages.put("status", "/status");
        return pages;
    }

    private static int report(int pipelines, int samples, Map<String, String> pages, Map<String, List<Double>> times,
                              PrintStream out) {
        out.printf(Locale.ROOT, "%n%-20s %-52s %9s %9s%n", "page", "address", "p50", "p95");
        StringBuilder result = new StringBuilder("RESULT pipelines=" + pipelines);
        double worst = 0;
        StringBuilder each = new StringBuilder();
        for (Map.Entry<String, List<Double>> page : times.entrySet()) {
            List<Double> sorted = new ArrayList<>(page.getValue());
            Collections.sort(sorted);
            double p50 = E2eFigures.percentile(sorted, 50);
            double p95 = E2eFigures.percentile(sorted, 95);
            worst = Math.max(worst, p95);
            out.printf(Locale.ROOT, "%-20s %-52s %6.1f ms %6.1f ms%n", page.getKey(), pages.get(page.getKey()),
                    p50, p95);
            each.append(String.format(Locale.ROOT, " %s_p50_ms=%.1f %s_p95_ms=%.1f", page.getKey(), p50,
                    page.getKey(), p95));
        }
        out.printf("%d reads of each page, round-robin, after %d to warm up; one session, one at a time%n", samples,
                samples / 5);
        out.println(result.append(String.format(Locale.ROOT, " worst_p95_ms=%.1f", worst)).append(each));
        return 0;
    }

    /** Signs in with the admin token through the sign-in form, as a browser does; returns the session cookie. */
    private static String signIn(HttpClient http, GantryRig rig) throws Exception {
        String token = rig.adminToken();
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(rig.url().resolve("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", rig.url().toString())
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)
                        + "&next=/projects")).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 303) {
            throw new IllegalStateException("sign-in answered " + answer.statusCode() + ": " + answer.body());
        }
        return answer.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
    }

    private static String read(HttpClient http, GantryRig rig, String cookie, String path) throws Exception {
        URI uri = rig.url().resolve(path);
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(uri).header("Cookie", cookie).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " answered " + answer.statusCode());
        }
        return answer.body();
    }
}
