package dev.gantry.config.plan;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Plan values keep their declaration order, so the plan is deterministic; {@code Map.copyOf} would not. */
final class Maps {
    private Maps() {
    }

    static <K, V> Map<K, V> frozen(Map<K, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
