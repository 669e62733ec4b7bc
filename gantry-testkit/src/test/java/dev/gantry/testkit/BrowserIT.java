package dev.gantry.testkit;

import com.microsoft.playwright.Page;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The browser test kit against real pages on a real HTTP server on loopback, each served with a strict
 * Content-Security-Policy (scripts from the server only, as the UI's will be), so that axe-core is shown to run under
 * one. One browser for the class: its start-up is the slow part, and is printed.
 */
class BrowserIT {
    private static final String CSP = "default-src 'self'";

    private static final String ACCESSIBLE = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><title>Pipelines</title><script src="/app.js" defer></script></head>
            <body>
              <main>
                <h1>Pipelines</h1>
                <p id="status">idle</p>
                <button id="build" type="button">Build</button>
                <form><label for="branch">Branch</label> <input id="branch" name="branch" type="text"></form>
              </main>
            </body>
            </html>
            """;
    private static final String APP_JS = """
            document.getElementById('build').addEventListener('click', () => {
              document.getElementById('status').textContent = 'building';
            });
            """;
    /** An input without a label and an image without alternative text: critical violations both. */
    private static final String INACCESSIBLE = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><title>Search</title></head>
            <body><main><h1>Search</h1><form><input name="q" type="text"></form><img src="/logo.png"></main></body>
            </html>
            """;
    /** Taller than the viewport, so that a full-page screenshot is too (no inline style: the policy forbids it). */
    private static final String TALL = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><title>Log</title></head>
            <body><main><h1>Log</h1>%s</main></body>
            </html>
            """.formatted("<p>step output</p>\n".repeat(60));

    private static HttpServer server;
    private static String base;
    private static Browser browser;
    private static Accessibility axe;

    private Page page;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Map<String, String[]> pages = Map.of(
                "/", new String[] {"text/html; charset=utf-8", ACCESSIBLE},
                "/app.js", new String[] {"text/javascript; charset=utf-8", APP_JS},
                "/search", new String[] {"text/html; charset=utf-8", INACCESSIBLE},
                "/log", new String[] {"text/html; charset=utf-8", TALL});
        server.createContext("/", exchange -> {
            String[] found = pages.get(exchange.getRequestURI().getPath());
            byte[] body = (found == null ? "not found" : found[1]).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", found == null ? "text/plain" : found[0]);
            exchange.getResponseHeaders().set("Content-Security-Policy", CSP);
            exchange.sendResponseHeaders(found == null ? 404 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();

        browser = Browser.launch();
        axe = Accessibility.load();
        System.out.printf("BrowserIT: Chromium %s at %s started in %d ms%n", browser.version(), browser.executable(),
                browser.startup().toMillis());
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    @BeforeEach
    void openPage() {
        page = browser.newPage();
    }

    @AfterEach
    void closePage() {
        page.context().close();
    }

    @Test
    void a_click_runs_the_pages_script_and_changes_its_text() {
        page.navigate(base + "/");
        assertThat(page.locator("#status")).hasText("idle");

        page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON,
                new Page.GetByRoleOptions().setName("Build")).click();

        assertThat(page.locator("#status")).hasText("building");
    }

    @Test
    void an_accessible_page_has_no_violations_at_all() {
        page.navigate(base + "/");

        assertThat(axe.check(page)).isEmpty();
        axe.assertNoSeriousViolations(page);
    }

    @Test
    void an_unlabelled_input_and_an_image_without_alt_are_reported_as_critical() {
        page.navigate(base + "/search");

        var violations = axe.check(page);

        assertThat(violations).extracting(Accessibility.Violation::id).contains("label", "image-alt");
        var label = violations.stream().filter(v -> v.id().equals("label")).findFirst().orElseThrow();
        assertThat(label.impact()).isEqualTo(Accessibility.Impact.CRITICAL);
        assertThat(label.nodes()).singleElement()
                .satisfies(node -> assertThat(node.html()).isEqualTo("<input name=\"q\" type=\"text\">"));
        assertThatThrownBy(() -> axe.assertNoSeriousViolations(page))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("critical label: ")
                .hasMessageContaining("<input name=\"q\" type=\"text\">");
    }

    @Test
    void a_full_page_screenshot_is_a_png_as_tall_as_the_page() throws IOException {
        page.navigate(base + "/log");
        Path file = Path.of("target", "screenshots", "browser-it-log.png");
        Files.deleteIfExists(file);

        Screenshots.fullPage(page, file);

        assertThat(file).isNotEmptyFile();
        try (InputStream in = Files.newInputStream(file)) {
            DataInputStream png = new DataInputStream(in);
            byte[] signature = png.readNBytes(8);
            assertThat(signature).containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');
            png.skipNBytes(8); // IHDR's length and type
            assertThat(png.readInt()).isEqualTo(Browser.VIEWPORT_WIDTH);
            assertThat(png.readInt()).isGreaterThan(Browser.VIEWPORT_HEIGHT);
        }
    }
}
