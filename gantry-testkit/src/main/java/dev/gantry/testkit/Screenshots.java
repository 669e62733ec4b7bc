package dev.gantry.testkit;

import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.ScreenshotAnimations;
import com.microsoft.playwright.options.ScreenshotCaret;
import com.microsoft.playwright.options.ScreenshotType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Screenshots that browser tests save for the docs (the UI's go to {@code docs/ui/}): full-page PNGs, with animations
 * stopped and the text caret hidden, so that the same page gives the same picture from run to run.
 */
public final class Screenshots {
    private Screenshots() {
    }

    /**
     * Writes the whole page, not only the viewport, as a PNG to {@code file} (its directories are made) and returns
     * it. Fails when the name does not end in {@code .png} or nothing was written.
     */
    public static Path fullPage(Page page, Path file) {
        if (!file.getFileName().toString().endsWith(".png")) {
            throw new IllegalArgumentException("a screenshot's file name must end in .png, got " + file);
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            page.screenshot(new Page.ScreenshotOptions()
                    .setPath(file)
                    .setType(ScreenshotType.PNG)
                    .setFullPage(true)
                    .setAnimations(ScreenshotAnimations.DISABLED)
                    .setCaret(ScreenshotCaret.HIDE));
            if (Files.size(file) == 0) {
                throw new IllegalStateException("Chromium wrote an empty screenshot of " + page.url() + " to " + file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not save a screenshot of " + page.url() + " to " + file, e);
        }
        return file;
    }
}
