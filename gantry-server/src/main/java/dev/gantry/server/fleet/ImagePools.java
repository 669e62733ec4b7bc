package dev.gantry.server.fleet;

import dev.gantry.scheduler.Instance;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which pool a job runs in, from its executor: the first pin whose image pattern matches ({@code *} matches any run of
 * characters), else {@code macos} for a macOS executor (only a Mac can run it), else {@link Instance#DEFAULT_POOL}.
 * Pins let one image's shortage stall only its own pool. Immutable.
 */
public final class ImagePools {
    /** Where macOS jobs run unless a pin says otherwise. */
    public static final String MACOS_POOL = "macos";

    private final Map<Pattern, String> pins;

    /** @param pins image pattern to pool, tried in order */
    public ImagePools(Map<String, String> pins) {
        Map<Pattern, String> compiled = new LinkedHashMap<>();
        pins.forEach((image, pool) -> compiled.put(glob(image), Objects.requireNonNull(pool, "pool")));
        this.pins = compiled;
    }

    /** No pins: macOS jobs in {@code macos}, the rest in {@code default}. */
    public static ImagePools standard() {
        return new ImagePools(Map.of());
    }

    /** @param executorType {@code docker}, {@code machine} or {@code macos}; null for jobs without an executor */
    public String poolOf(String executorType, String image) {
        if (image != null) {
            for (Map.Entry<Pattern, String> pin : pins.entrySet()) {
                if (pin.getKey().matcher(image).matches()) {
                    return pin.getValue();
                }
            }
        }
        return "macos".equals(executorType) ? MACOS_POOL : Instance.DEFAULT_POOL;
    }

    private static Pattern glob(String image) {
        StringBuilder regex = new StringBuilder();
        for (String part : image.split("\\*", -1)) {
            if (!regex.isEmpty()) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(part));
        }
        return Pattern.compile(regex.toString());
    }
}
