package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.project.ProjectSlug;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/** The fallback of a server whose live streams are all taken, over real HTTP. */
class LiveStreamsIT {
    @Test
    void a_stream_beyond_the_limit_is_told_the_server_is_busy_and_when_to_try_again() throws Exception {
        // No room at all: the stream is refused before it reads anything, so it needs no pages, watcher or store.
        LiveStreams full = new LiveStreams(null, null, null, null, InstantSource.system(), 0);
        Javalin http = Javalin.create(config -> {
            config.jetty.host = "127.0.0.1";
            config.jetty.port = 0;
            config.startup.showJavalinBanner = false;
            config.routes.get("/events", ctx -> full.job(ctx, null, new ProjectSlug("acme", "app"), null, 0));
        }).start();
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + http.port() + "/events")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("text/event-stream"));
            assertThat(answer.body()).startsWith("retry: 30000\n\nevent: busy\ndata: Live updates are paused")
                    .endsWith("\n\n");
            assertThat(full.open()).isZero();
        } finally {
            http.stop();
        }
    }
}
