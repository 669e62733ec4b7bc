package dev.gantry.server.orb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * An orb registry that answers CircleCI's GraphQL {@code orbVersion(orbVersionRef:)} query, as
 * {@code https://circleci.com/graphql-unstable} does: asked for {@code ns/name@5}, it names the version that
 * reference picks and gives its source. Bounded: connect and read timeouts, and a limit on the answer's size.
 * Thread-safe.
 */
public final class UpstreamRegistry {
    private static final String QUERY = "query($orbVersionRef: String!) { orbVersion(orbVersionRef: $orbVersionRef) "
            + "{ id version orb { id name } source } }";
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final int MAX_ANSWER_BYTES = 2 * OrbStore.MAX_SOURCE_BYTES + 64 * 1024;

    /** A version the registry picked for a reference, and its source. */
    public record Fetched(String version, String source) {
    }

    /** The registry could not be asked, or answered with an error: another try may work. */
    public static final class UnavailableException extends RuntimeException {
        UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final URI url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();

    /** @param url the GraphQL endpoint, e.g. {@code https://circleci.com/graphql-unstable} */
    public UpstreamRegistry(URI url) {
        this.url = url;
    }

    public URI url() {
        return url;
    }

    /**
     * What the registry has for {@code reference} ({@code ns/name@version}); empty when it has no such orb version.
     *
     * @throws UnavailableException when it could not be asked or did not answer as a registry does
     */
    public Optional<Fetched> fetch(String reference) throws InterruptedException {
        ObjectNode body = Json.MAPPER.createObjectNode().put("query", QUERY);
        body.putObject("variables").put("orbVersionRef", reference);
        HttpRequest request = HttpRequest.newBuilder(url).timeout(TIMEOUT)
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body))).build();
        HttpResponse<InputStream> response;
        JsonNode answer;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                byte[] bytes = in.readNBytes(MAX_ANSWER_BYTES + 1);
                if (bytes.length > MAX_ANSWER_BYTES) {
                    throw new UnavailableException("the orb registry " + url + " answered more than "
                            + MAX_ANSWER_BYTES + " bytes for " + reference, null);
                }
                if (response.statusCode() != 200) {
                    throw new UnavailableException("the orb registry " + url + " answered HTTP "
                            + response.statusCode() + " for " + reference, null);
                }
                answer = Json.MAPPER.readTree(bytes);
            }
        } catch (IOException e) {
            throw new UnavailableException("cannot ask the orb registry " + url + " for " + reference + ": " + e, e);
        }
        JsonNode version = answer.path("data").path("orbVersion");
        if (version.isNull() || version.isMissingNode()) {
            if (answer.path("errors").isArray() && !answer.path("errors").isEmpty()
                    && !answer.path("data").has("orbVersion")) {
                throw new UnavailableException("the orb registry " + url + " answered an error for " + reference + ": "
                        + answer.path("errors").get(0).path("message").asText(), null);
            }
            return Optional.empty();
        }
        if (!version.path("version").isTextual() || !version.path("source").isTextual()) {
            throw new UnavailableException("the orb registry " + url + " answered " + reference
                    + " without a version and a source", null);
        }
        return Optional.of(new Fetched(version.path("version").asText(), version.path("source").asText()));
    }
}
