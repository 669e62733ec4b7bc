package dev.gantry.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * The command line's client of the Gantry API: JSON over HTTP with the admin token. Failures to reach the server are
 * {@link GantryClientException}s that say which server; answers of any status come back as {@link Answer}s.
 * Thread-safe.
 */
public final class GantryClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI server;
    private final String token;

    public GantryClient(URI server, String token) {
        this.server = server;
        this.token = token;
    }

    public URI server() {
        return server;
    }

    /** An answer: its status and JSON body (an empty object when the body was empty or not JSON). */
    public record Answer(int status, JsonNode json) {
        public boolean ok() {
            return status / 100 == 2;
        }

        /** The API's error message, for reports. */
        public String message() {
            JsonNode message = json.get("message");
            return "HTTP " + status + (message == null ? "" : ": " + message.asText());
        }
    }

    public Answer get(String path) {
        return send(request(path).GET());
    }

    /** A GET whose answer is text (job output); throws unless it is 200. */
    public String getText(String path) {
        try {
            HttpResponse<String> response = http.send(request(path).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new GantryClientException("GET " + path + ": HTTP " + response.statusCode() + ": "
                        + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GantryClientException("interrupted while talking to " + server, e);
        }
    }

    public Answer post(String path, Map<String, ?> body) {
        try {
            return send(request(path).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A PUT of {@code text} as {@code contentType}, e.g. an orb's YAML source. */
    public Answer put(String path, String text, String contentType) {
        return send(request(path).header("Content-Type", contentType).PUT(HttpRequest.BodyPublishers.ofString(text)));
    }

    /** Opens a streamed GET (server-sent events, job output); the caller closes the stream. */
    public HttpResponse<InputStream> stream(String path) {
        try {
            return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GantryClientException("interrupted while talking to " + server, e);
        }
    }

    /** {@code value} encoded for a URL path segment or query value. */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(server.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Circle-Token", token).header("Accept", "application/json");
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), parse(response.body()));
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GantryClientException("interrupted while talking to " + server, e);
        }
    }

    private GantryClientException unreachable(IOException e) {
        return new GantryClientException("cannot reach the Gantry server at " + server + " (" + e + "); is it "
                + "running? Start one with: bin/gantry up", e);
    }

    private static JsonNode parse(String body) {
        try {
            return body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException notJson) {
            return JSON.createObjectNode().put("message", body.strip());
        }
    }
}
