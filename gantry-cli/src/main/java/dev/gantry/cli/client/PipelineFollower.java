package dev.gantry.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Follows a pipeline on the terminal: each job's status changes, and the output of every node of every job that
 * runs, line by line with the job's name in front, until every workflow has finished. Output is streamed with the
 * API's server-sent events; statuses are polled.
 */
public final class PipelineFollower {
    private static final Duration POLL = Duration.ofMillis(300);
    private static final Set<String> FINISHED_WORKFLOW = Set.of("success", "failed", "canceled", "not_run", "error");

    private final GantryClient client;
    private final PrintWriter out;
    private final ExecutorService streams = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gantry-output");
        t.setDaemon(true);
        return t;
    });

    public PipelineFollower(GantryClient client, PrintWriter out) {
        this.client = client;
        this.out = out;
    }

    /**
     * Follows pipeline {@code pipelineId} of project {@code slug} until it has finished.
     *
     * @return true if the pipeline was created and every workflow succeeded
     */
    public boolean follow(String slug, String pipelineId) throws InterruptedException {
        JsonNode pipeline = awaitPlanned(pipelineId);
        if (pipeline.path("state").asText().equals("errored")) {
            say("pipeline " + pipeline.path("number").asText() + " errored:");
            for (JsonNode error : pipeline.path("errors")) {
                say("  " + error.path("message").asText());
            }
            return false;
        }
        Map<String, String> jobStatuses = new HashMap<>();
        Set<String> streamed = new HashSet<>();
        List<JsonNode> workflows;
        while (true) {
            workflows = items("/api/v2/pipeline/" + pipelineId + "/workflow");
            boolean finished = !workflows.isEmpty();
            for (JsonNode workflow : workflows) {
                finished &= FINISHED_WORKFLOW.contains(workflow.path("status").asText());
                for (JsonNode job : items("/api/v2/workflow/" + workflow.path("id").asText() + "/job")) {
                    report(slug, workflow, job, jobStatuses, streamed);
                }
            }
            if (finished || workflows.isEmpty() && pipeline.path("state").asText().equals("created")) {
                break;
            }
            Thread.sleep(POLL.toMillis());
        }
        streams.shutdown();
        // The streams end with their jobs; give the last lines a moment to arrive.
        streams.awaitTermination(10, TimeUnit.SECONDS);
        boolean success = true;
        for (JsonNode workflow : workflows) {
            String status = workflow.path("status").asText();
            say("workflow " + workflow.path("name").asText() + ": " + status);
            success &= status.equals("success");
        }
        return success;
    }

    private JsonNode awaitPlanned(String pipelineId) throws InterruptedException {
        while (true) {
            GantryClient.Answer answer = client.get("/api/v2/pipeline/" + pipelineId);
            if (!answer.ok()) {
                throw new GantryClientException("reading pipeline " + pipelineId + ": " + answer.message());
            }
            if (!answer.json().path("state").asText().equals("pending")) {
                return answer.json();
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private void report(String slug, JsonNode workflow, JsonNode job, Map<String, String> statuses,
                        Set<String> streamed) {
        String id = job.path("id").asText();
        String name = job.path("name").asText();
        String status = job.path("status").asText();
        if (!status.equals(statuses.put(id, status))) {
            say(name + ": " + status + (status.equals("on_hold") ? "; approve it with: curl -X POST -H "
                    + "\"Circle-Token: $(cat ~/.gantry/admin-token)\" " + client.server() + "/api/v2/workflow/"
                    + workflow.path("id").asText() + "/approve/" + id : ""));
        }
        boolean started = !status.equals("blocked") && !status.equals("queued") && !status.equals("on_hold")
                && !job.path("started_at").isNull() && !job.path("started_at").isMissingNode();
        if (started && job.hasNonNull("job_number") && !job.path("type").asText().equals("approval")
                && streamed.add(id)) {
            long number = job.path("job_number").asLong();
            JsonNode detail = client.get("/api/v2/project/" + slug + "/job/" + number).json();
            int nodes = Math.max(1, detail.path("parallelism").asInt(1));
            for (int node = 0; node < nodes; node++) {
                String prefix = nodes == 1 ? name : name + "/" + node;
                String path = "/api/v2/project/" + slug + "/job/" + number + "/output?follow=true&node=" + node;
                streams.submit(() -> stream(path, prefix));
            }
        }
    }

    /** Prints a job node's output events line by line until the stream ends. */
    private void stream(String path, String prefix) {
        HttpResponse<InputStream> response = client.stream(path);
        if (response.statusCode() != 200) {
            say(prefix + ": cannot follow its output (HTTP " + response.statusCode() + ")");
            return;
        }
        StringBuilder partial = new StringBuilder();
        try (BufferedReader events = new BufferedReader(new InputStreamReader(response.body(),
                StandardCharsets.UTF_8))) {
            String event = "message";
            StringBuilder data = new StringBuilder();
            for (String line; (line = events.readLine()) != null; ) {
                if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                    data.append(data.isEmpty() ? "" : "\n").append(line.substring(line.startsWith("data: ") ? 6 : 5));
                } else if (line.isEmpty()) {
                    if (event.equals("output")) {
                        // An event is whole lines, its last newline dropped as the event format does.
                        printLines(prefix, partial.append(data).append('\n'));
                    } else if (event.equals("end")) {
                        break;
                    }
                    event = "message";
                    data.setLength(0);
                }
            }
        } catch (java.io.IOException e) {
            say(prefix + ": output stream broke off: " + e.getMessage());
        }
        if (!partial.isEmpty()) {
            say("[" + prefix + "] " + partial);
        }
    }

    /** Prints the complete lines in {@code text} and leaves the unfinished last one in it. */
    private void printLines(String prefix, StringBuilder text) {
        int end;
        while ((end = text.indexOf("\n")) >= 0) {
            say("[" + prefix + "] " + text.substring(0, end));
            text.delete(0, end + 1);
        }
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /** Every item of a list endpoint, page after page. */
    private List<JsonNode> items(String path) {
        List<JsonNode> items = new ArrayList<>();
        String page = null;
        do {
            GantryClient.Answer answer = client.get(path + (page == null ? ""
                    : "?page-token=" + GantryClient.encode(page)));
            if (!answer.ok()) {
                throw new GantryClientException("reading " + path + ": " + answer.message());
            }
            answer.json().path("items").forEach(items::add);
            JsonNode next = answer.json().path("next_page_token");
            page = next.isTextual() ? next.asText() : null;
        } while (page != null);
        return items;
    }
}
