package dev.gantry.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A client of the server's HTTP API over loopback, as any client would use it: real requests through
 * {@link HttpClient}, optionally with a token in {@code Circle-Token}. Thread-safe.
 */
final class ApiClient {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final URI base;
    private final String token;

    ApiClient(URI base, String token) {
        this.base = base;
        this.token = token;
    }

    /** The same server without a token. */
    ApiClient anonymous() {
        return new ApiClient(base, null);
    }

    /** The same server with {@code token} in {@code Circle-Token}. */
    ApiClient withToken(String token) {
        return new ApiClient(base, token);
    }

    /** An answer: status, headers and body. */
    record Answer(int status, HttpHeaders headers, String body) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (status " + status + "): " + body, e);
            }
        }

        String text(String field) {
            JsonNode value = json().get(field);
            return value == null || value.isNull() ? null : value.asText();
        }

        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }
    }

    /** The server's URL without a trailing slash: {@code http://127.0.0.1:PORT}. */
    String baseUrl() {
        String url = base.toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    Answer get(String path, String... headers) {
        return send("GET", path, HttpRequest.BodyPublishers.noBody(), headers);
    }

    /** POSTs {@code json} with {@code Content-Type: application/json} unless {@code headers} set another. */
    Answer post(String path, String json, String... headers) {
        List<String> all = new ArrayList<>(List.of(headers));
        if (!List.of(headers).contains("Content-Type")) {
            all.addAll(List.of("Content-Type", "application/json"));
        }
        return send("POST", path, HttpRequest.BodyPublishers.ofString(json), all.toArray(String[]::new));
    }

    /** PUTs {@code json} with {@code Content-Type: application/json}. */
    Answer put(String path, String json) {
        return send("PUT", path, HttpRequest.BodyPublishers.ofString(json), "Content-Type", "application/json");
    }

    Answer delete(String path) {
        return send("DELETE", path, HttpRequest.BodyPublishers.noBody());
    }

    /** Sends a request and returns the answer's body as bytes; {@code headers} are name, value, ... */
    byte[] sendForBytes(String method, String path, HttpRequest.BodyPublisher body, String... headers) {
        try {
            HttpResponse<byte[]> response = HTTP.send(request(method, path, body, headers).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                throw new AssertionError(method + " " + path + " answered " + response.statusCode());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    /** Sends a request; {@code headers} are name, value, name, value, ... */
    Answer send(String method, String path, HttpRequest.BodyPublisher body, String... headers) {
        try {
            HttpResponse<String> response = HTTP.send(request(method, path, body, headers).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    private HttpRequest.Builder request(String method, String path, HttpRequest.BodyPublisher body,
                                        String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, body);
        if (token != null) {
            request.header("Circle-Token", token);
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request;
    }
}
