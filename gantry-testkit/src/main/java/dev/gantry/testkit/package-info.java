/**
 * Test support that several modules need, used in test scope (and by the chaos suite in gantry-bench):
 * {@link dev.gantry.testkit.EmbeddedPostgresExtension}
 * (one real PostgreSQL per JVM, a fresh database per test class, a non-UTC session time zone, a server that tests can
 * stop and restart), {@link dev.gantry.testkit.ManualClock} (time that moves only when the test says so) and
 * {@link dev.gantry.testkit.TcpBalancer} (a health-checking TCP load balancer in front of several servers, as an
 * operator would run; the chaos suite in gantry-bench uses it too).
 *
 * <p>Browser tests: {@link dev.gantry.testkit.Browser} (a headless Chromium driven by Playwright),
 * {@link dev.gantry.testkit.Accessibility} (axe-core run in the page) and {@link dev.gantry.testkit.Screenshots}
 * (full-page PNGs for the docs). They use the system's Chromium, never one Playwright downloads:
 * {@code GANTRY_CHROMIUM} (default {@code /usr/bin/chromium}) and axe-core's script {@code GANTRY_AXE_JS} (default
 * {@code ~/.cache/gantry/axe-core-VERSION/axe.min.js}), both set up and exported by {@code bin/test}
 * ({@code bin/lib/browser.sh}; {@code GANTRY_NO_BROWSER=1} skips that). When either is missing the tests fail saying
 * so; they never skip.
 *
 * <p>What belongs here: helpers that make tests of more than one module honest and short. What does not: fakes of
 * Gantry's own components (those live beside the tests that need them) and anything production code would call.
 */
package dev.gantry.testkit;
