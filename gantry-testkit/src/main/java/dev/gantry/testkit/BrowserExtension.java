package dev.gantry.testkit;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link Browser} for a test class, launched before its first test and closed after its last (register it as a
 * static field), with axe-core loaded the first time a page is checked. Starting Chromium takes about 2 s, so the
 * tests of a class share it and take a page or a context each.
 */
public final class BrowserExtension implements BeforeAllCallback, AfterAllCallback {
    private Browser browser;
    private Accessibility axe;

    @Override
    public void beforeAll(ExtensionContext context) {
        browser = Browser.launch();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (browser != null) {
            browser.close();
        }
    }

    public Page newPage() {
        return browser.newPage();
    }

    public BrowserContext newContext(com.microsoft.playwright.Browser.NewContextOptions options) {
        return browser.newContext(options);
    }

    /** Fails with the violations listed when axe-core finds a serious or critical one on {@code page}. */
    public synchronized void assertNoSeriousViolations(Page page) {
        if (axe == null) {
            axe = Accessibility.load();
        }
        axe.assertNoSeriousViolations(page);
    }
}
