package dev.gantry.testkit;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.ReducedMotion;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A headless Chromium for browser tests, driven by Playwright: the system's Chromium ({@value #CHROMIUM_ENV}, default
 * {@link #DEFAULT_CHROMIUM}, which {@code bin/test} installs on Debian), never a browser Playwright downloads.
 *
 * <pre>{@code
 * try (Browser browser = Browser.launch()) {
 *     Page page = browser.newPage();
 *     page.navigate(server + "/projects");
 *     Accessibility.load().assertNoSeriousViolations(page);
 *     Screenshots.fullPage(page, Path.of("../docs/ui/projects.png"));
 * }
 * }</pre>
 *
 * <p>Each launch starts Playwright's Node driver (unpacked from its jar into a temporary directory once per JVM; that
 * needs no network) with {@code PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1}, then Chromium with {@link #CHROMIUM_ARGS} and a
 * fresh temporary profile that Playwright deletes when the browser closes. Starting takes a second or two
 * ({@link #startup()}), so share one browser per test class and give each test its own {@link #newContext() context}
 * or {@link #newPage() page}: contexts share no cookies or storage.
 *
 * <p>When Chromium is missing, {@link #launch()} throws {@link IllegalStateException} saying how to get it; browser
 * tests never skip themselves, so that CI, which runs {@code bin/test}, always runs them. Like Playwright's own
 * objects, a browser and its pages are for one thread at a time. {@link #close()} ends Chromium and the driver.
 */
public final class Browser implements AutoCloseable {
    /** The environment variable naming the Chromium executable; {@code bin/test} exports it. */
    public static final String CHROMIUM_ENV = "GANTRY_CHROMIUM";
    /** Debian's Chromium, used when {@value #CHROMIUM_ENV} is not set. */
    public static final Path DEFAULT_CHROMIUM = Path.of("/usr/bin/chromium");
    /**
     * Chromium's command-line flags: no sandbox (CI runs as root, where Chromium refuses to start with it), no GPU,
     * and none of the background traffic (QUIC, updates, sync, first-run pages) a test machine without internet
     * would wait on.
     */
    public static final List<String> CHROMIUM_ARGS = List.of("--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync");
    /** How long a page's actions and navigations wait by default: a UI that takes longer is broken, not slow. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** The viewport of new contexts, wide enough for the UI's desktop layout; screenshots for the docs use it. */
    public static final int VIEWPORT_WIDTH = 1280;
    public static final int VIEWPORT_HEIGHT = 800;

    private final Playwright playwright;
    private final com.microsoft.playwright.Browser chromium;
    private final Path executable;
    private final Duration startup;

    private Browser(Playwright playwright, com.microsoft.playwright.Browser chromium, Path executable,
            Duration startup) {
        this.playwright = playwright;
        this.chromium = chromium;
        this.executable = executable;
        this.startup = startup;
    }

    /** Launches the Chromium of {@value #CHROMIUM_ENV}, or {@link #DEFAULT_CHROMIUM} when that is not set. */
    public static Browser launch() {
        String configured = System.getenv(CHROMIUM_ENV);
        String origin = configured == null || configured.isBlank()
                ? CHROMIUM_ENV + " is not set"
                : CHROMIUM_ENV + "=" + configured;
        return launch(chromiumFromEnvironment(System.getenv()), origin);
    }

    /** Launches the Chromium at {@code executable}, headless. */
    public static Browser launch(Path executable) {
        return launch(executable, "given to Browser.launch");
    }

    private static Browser launch(Path executable, String origin) {
        requireExecutable(executable, origin);
        long start = System.nanoTime();
        Playwright playwright;
        try {
            playwright = Playwright.create(
                    new Playwright.CreateOptions().setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not start Playwright's Node driver, which it unpacks from its jar "
                    + "into " + System.getProperty("java.io.tmpdir") + ": " + e.getMessage(), e);
        }
        try {
            com.microsoft.playwright.Browser chromium = playwright.chromium().launch(new BrowserType.LaunchOptions()
                    .setExecutablePath(executable)
                    .setHeadless(true)
                    .setArgs(CHROMIUM_ARGS)
                    .setTimeout(DEFAULT_TIMEOUT.multipliedBy(3).toMillis()));
            return new Browser(playwright, chromium, executable, Duration.ofNanos(System.nanoTime() - start));
        } catch (RuntimeException e) {
            playwright.close();
            throw new IllegalStateException("could not start Chromium at " + executable + " through Playwright: "
                    + e.getMessage(), e);
        }
    }

    /** The executable {@link #launch()} uses: {@value #CHROMIUM_ENV} from {@code env} if set, else the default. */
    static Path chromiumFromEnvironment(Map<String, String> env) {
        String configured = env.get(CHROMIUM_ENV);
        if (configured == null || configured.isBlank()) {
            return DEFAULT_CHROMIUM;
        }
        return Path.of(configured);
    }

    private static void requireExecutable(Path executable, String origin) {
        if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
            throw new IllegalStateException("no Chromium at " + executable + " (" + origin + "): run bin/test once, "
                    + "which installs Debian's chromium as root (bin/lib/browser.sh), or apt-get install "
                    + "--no-install-recommends chromium, or point " + CHROMIUM_ENV + " at a Chromium");
        }
    }

    /**
     * Options for {@link #newContext(com.microsoft.playwright.Browser.NewContextOptions)} with this class's defaults
     * ({@link #VIEWPORT_WIDTH}x{@link #VIEWPORT_HEIGHT}, en-US, reduced motion), to adjust, e.g.
     * {@code contextOptions().setJavaScriptEnabled(false)} to see a page as a reader without JavaScript does.
     */
    public static com.microsoft.playwright.Browser.NewContextOptions contextOptions() {
        return new com.microsoft.playwright.Browser.NewContextOptions()
                .setViewportSize(VIEWPORT_WIDTH, VIEWPORT_HEIGHT)
                .setDeviceScaleFactor(1)
                .setLocale("en-US")
                .setReducedMotion(ReducedMotion.REDUCE);
    }

    /** A new context with {@link #contextOptions()}: its own cookies and storage, as a new visitor has. */
    public BrowserContext newContext() {
        return newContext(contextOptions());
    }

    /** A new context with {@code options}; its pages wait {@link #DEFAULT_TIMEOUT} by default. */
    public BrowserContext newContext(com.microsoft.playwright.Browser.NewContextOptions options) {
        BrowserContext context = chromium.newContext(options);
        context.setDefaultTimeout(DEFAULT_TIMEOUT.toMillis());
        context.setDefaultNavigationTimeout(DEFAULT_TIMEOUT.toMillis());
        return context;
    }

    /** A page in a new context of its own ({@link #newContext()}); closing the page's context closes both. */
    public Page newPage() {
        return newContext().newPage();
    }

    /** Chromium's version, e.g. {@code 141.0.7390.54}. */
    public String version() {
        return chromium.version();
    }

    /** The Chromium executable this browser runs. */
    public Path executable() {
        return executable;
    }

    /** How long {@link #launch()} took: Playwright's driver and Chromium, until Chromium answered. */
    public Duration startup() {
        return startup;
    }

    /** The Playwright browser, for what this class does not wrap. */
    public com.microsoft.playwright.Browser playwrightBrowser() {
        return chromium;
    }

    /** Closes every context and page, ends Chromium (its profile is deleted) and Playwright's driver. */
    @Override
    public void close() {
        try {
            chromium.close();
        } finally {
            playwright.close();
        }
    }
}
