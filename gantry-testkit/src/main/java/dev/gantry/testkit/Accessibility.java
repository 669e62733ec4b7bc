package dev.gantry.testkit;

import com.microsoft.playwright.Page;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Accessibility checks of a page with axe-core, run inside the page as a screen reader's user meets it: the script of
 * {@value #AXE_ENV} (default {@link #defaultAxeScript()}, where {@code bin/test} puts axe-core {@value #AXE_VERSION}
 * from the npm registry) is evaluated in the page through the DevTools protocol, which a page's Content-Security-Policy
 * does not block, and {@code axe.run()} checks the whole document with axe's default rules (WCAG 2.x A and AA and
 * best practices). Frames are not checked.
 *
 * <pre>{@code
 * Accessibility axe = Accessibility.load();
 * axe.assertNoSeriousViolations(page);          // fails listing every serious or critical violation
 * List<Accessibility.Violation> all = axe.check(page);
 * }</pre>
 *
 * <p>An instance holds the script (about 650 kB) and is immutable: load it once per test class and share it. When the
 * script is missing, {@link #load()} throws {@link IllegalStateException} naming {@code bin/test}; tests are never
 * skipped for it.
 */
public final class Accessibility {
    /** The environment variable naming axe-core's {@code axe.min.js}; {@code bin/test} exports it. */
    public static final String AXE_ENV = "GANTRY_AXE_JS";
    /** The axe-core that {@code bin/lib/browser.sh} fetches: its {@code GANTRY_AXE_VERSION}, kept equal by a test. */
    public static final String AXE_VERSION = "4.14.1";

    // Runs axe and returns plain values (Playwright hands back lists and maps): a node's target is one selector per
    // frame, each a list when it enters shadow DOM, hence flat().
    private static final String RUN = """
            async () => {
              const results = await axe.run(document, { resultTypes: ['violations'] });
              return results.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
                nodes: v.nodes.map(n => ({
                  target: n.target.flat().join(' >>> '), html: n.html, summary: n.failureSummary || ''
                }))
              }));
            }""";

    private final Path script;
    private final String source;

    private Accessibility(Path script, String source) {
        this.script = script;
        this.source = source;
    }

    /** Loads the axe-core of {@value #AXE_ENV}, or {@link #defaultAxeScript()} when that is not set. */
    public static Accessibility load() {
        String configured = System.getenv(AXE_ENV);
        if (configured == null || configured.isBlank()) {
            return load(defaultAxeScript(), AXE_ENV + " is not set");
        }
        return load(Path.of(configured), AXE_ENV + "=" + configured);
    }

    /** Loads axe-core from {@code axeMinJs}. */
    public static Accessibility load(Path axeMinJs) {
        return load(axeMinJs, "given to Accessibility.load");
    }

    private static Accessibility load(Path axeMinJs, String origin) {
        String source;
        try {
            source = Files.isRegularFile(axeMinJs) ? Files.readString(axeMinJs) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("could not read axe-core at " + axeMinJs, e);
        }
        if (source.isBlank()) {
            throw new IllegalStateException("no axe-core at " + axeMinJs + " (" + origin + "): run bin/test once, "
                    + "which fetches axe-core " + AXE_VERSION + " from the npm registry (bin/lib/browser.sh), or point "
                    + AXE_ENV + " at an axe.min.js");
        }
        return new Accessibility(axeMinJs, source);
    }

    /** Where {@code bin/test} keeps axe-core: {@code $HOME/.cache/gantry/axe-core-VERSION/axe.min.js}. */
    public static Path defaultAxeScript() {
        return Path.of(System.getProperty("user.home"), ".cache", "gantry", "axe-core-" + AXE_VERSION, "axe.min.js");
    }

    /** The script this instance injects. */
    public Path script() {
        return script;
    }

    /**
     * Every violation of axe's rules in the page as it is now, most severe first; injects axe-core into the page
     * unless it is there already (a navigation removes it).
     */
    public List<Violation> check(Page page) {
        if (!hasAxe(page)) {
            page.evaluate(source);
            // axe's loader registers with an AMD define() instead of setting window.axe when the page has one.
            if (!hasAxe(page)) {
                throw new IllegalStateException("axe-core from " + script + " ran in " + page.url()
                        + " but defined no window.axe (does the page have an AMD define()?)");
            }
        }
        Object raw = page.evaluate(RUN);
        List<Violation> violations = new ArrayList<>();
        for (Object item : (List<?>) raw) {
            violations.add(Violation.of((Map<?, ?>) item));
        }
        violations.sort((a, b) -> b.impact().compareTo(a.impact()));
        return List.copyOf(violations);
    }

    private static boolean hasAxe(Page page) {
        return Boolean.TRUE.equals(page.evaluate("() => typeof window.axe === 'object'"));
    }

    /**
     * Fails with an {@link AssertionError} that lists, readably, every violation of impact {@link Impact#SERIOUS} or
     * {@link Impact#CRITICAL} in the page; lesser ones do not fail it.
     */
    public void assertNoSeriousViolations(Page page) {
        List<Violation> serious = check(page).stream().filter(v -> v.impact().isAtLeast(Impact.SERIOUS)).toList();
        if (!serious.isEmpty()) {
            throw new AssertionError("axe-core " + AXE_VERSION + " found " + serious.size()
                    + " serious or critical accessibility violation(s) in " + page.url() + ":\n" + describe(serious));
        }
    }

    /**
     * One paragraph per violation: impact, rule, what it requires and where to read more, then each offending
     * element's selector and start tag, and axe's summary of how to fix it.
     */
    public static String describe(List<Violation> violations) {
        StringBuilder text = new StringBuilder();
        for (Violation violation : violations) {
            text.append("  ").append(violation.impact().label()).append(' ').append(violation.id()).append(": ")
                    .append(violation.help()).append(" (").append(violation.helpUrl()).append(")\n");
            for (Node node : violation.nodes()) {
                text.append("    at ").append(node.target()).append("  ").append(node.html()).append('\n');
                for (String line : node.summary().split("\n")) {
                    if (!line.isBlank()) {
                        text.append("      ").append(line.strip()).append('\n');
                    }
                }
            }
        }
        return text.toString();
    }

    /** How much a violation hurts, as axe-core grades it; ordered from least to most. */
    public enum Impact {
        MINOR, MODERATE, SERIOUS, CRITICAL;

        /** axe's name of the grade, e.g. {@code serious}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public boolean isAtLeast(Impact other) {
            return compareTo(other) >= 0;
        }

        static Impact of(Object label) {
            for (Impact impact : values()) {
                if (impact.label().equals(label)) {
                    return impact;
                }
            }
            throw new IllegalStateException("axe-core reported an impact this class does not know: " + label);
        }
    }

    /**
     * A rule of axe that the page breaks: its id (e.g. {@code label}), impact, one-line requirement, axe's page about
     * it, and the elements that break it.
     */
    public record Violation(String id, Impact impact, String help, String helpUrl, List<Node> nodes) {
        public Violation {
            nodes = List.copyOf(nodes);
        }

        /** The CSS selectors of the offending elements. */
        public List<String> targets() {
            return nodes.stream().map(Node::target).toList();
        }

        static Violation of(Map<?, ?> raw) {
            List<Node> nodes = new ArrayList<>();
            for (Object node : (List<?>) raw.get("nodes")) {
                Map<?, ?> fields = (Map<?, ?>) node;
                nodes.add(new Node((String) fields.get("target"), (String) fields.get("html"),
                        (String) fields.get("summary")));
            }
            return new Violation((String) raw.get("id"), Impact.of(raw.get("impact")), (String) raw.get("help"),
                    (String) raw.get("helpUrl"), nodes);
        }
    }

    /**
     * An element that breaks a rule: the shortest CSS selector that finds it (frames and shadow roots joined with
     * {@code >>>}), its start tag as axe shows it, and axe's summary of what to fix.
     */
    public record Node(String target, String html, String summary) {
    }
}
