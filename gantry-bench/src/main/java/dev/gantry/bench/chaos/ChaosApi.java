package dev.gantry.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The driver's API client, through the balancer: triggers with an {@code Idempotency-Key} (which
 * {@code GantryClient} cannot send) and reads, with short timeouts so that a paused server costs a request seconds,
 * not minutes. Thread-safe.
 */
final class ChaosApi {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final URI base;
    private final String token;

    ChaosApi(URI base, String token) {
        this.base = base;
        this.token = token;
    }

    /** An answer: its status and JSON body (empty when there was none). */
    record Answer(int status, JsonNode json) {
        boolean ok() {
            return status / 100 == 2;
        }
    }

    /**
     * One trigger attempt of a pipeline on main.
     *
     * @throws IOException when no answer came (refused, reset, timed out): the trigger may or may not have been stored
     */
    Answer trigger(String slug, String idempotencyKey) throws IOException, InterruptedException {
        return send(request("/api/v2/project/" + slug + "/pipeline").header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString("{\"branch\":\"main\"}")));
    }

    Answer get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    /** A GET that gives up quietly: empty when there was no 200 answer. */
    Optional<JsonNode> read(String path) {
        try {
            Answer answer = get(path);
            return answer.status() == 200 ? Optional.of(answer.json()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT).header("Circle-Token", token)
                .header("Accept", "application/json");
    }

    private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        JsonNode json;
        try {
            json = body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException notJson) {
            json = JSON.createObjectNode().put("message", body.strip());
        }
        return new Answer(response.statusCode(), json);
    }
}
