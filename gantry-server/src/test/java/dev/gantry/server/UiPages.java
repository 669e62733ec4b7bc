package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * The web UI read over HTTP as a browser without JavaScript reads it: signing in with a token gives the session's
 * cookie, and pages are read with it (or without, to see the way to the sign-in page); redirects are not followed.
 */
final class UiPages {
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .build();

    private final String baseUrl;

    UiPages(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** Signs in with {@code token}; the session's cookie, {@code name=value}. */
    String signIn(String token) throws Exception {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(uri("/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", baseUrl)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + URLEncoder.encode(token,
                        StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(303);
        return answer.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
    }

    /** GET {@code path} with the session {@code cookie} (null: signed out). */
    HttpResponse<String> get(String path, String cookie) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The page without the white space between tags, so that a table row reads as one string. */
    static String flat(String html) {
        return html.replaceAll(">\\s+<", "><");
    }

    private URI uri(String path) {
        return URI.create(baseUrl + path);
    }
}
