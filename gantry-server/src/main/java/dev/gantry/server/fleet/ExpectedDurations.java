package dev.gantry.server.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Handle;

/**
 * How long a job is expected to run: the median of its last ten successful runs (same project, same name), or unknown
 * when it has none. Placement backfills and estimates from these. Kept for {@link #FRESH_FOR} so that a claim, which
 * reads the snapshot each time, does not also read history each time. Thread-safe.
 */
final class ExpectedDurations {
    /** How long a median read from history is used before it is read again. */
    static final Duration FRESH_FOR = Duration.ofMinutes(1);

    /** A job by project and name. */
    record Key(UUID projectId, String name) {
    }

    private record Entry(Optional<Duration> median, Instant readAt) {
    }

    private final Map<Key, Entry> cache = new ConcurrentHashMap<>();

    /** The expected duration of each of {@code keys}, reading the stale and missing ones in one query. */
    Map<Key, Optional<Duration>> of(Handle h, Collection<Key> keys, Instant now) {
        Set<Key> stale = new LinkedHashSet<>();
        for (Key key : keys) {
            Entry entry = cache.get(key);
            if (entry == null || entry.readAt().plus(FRESH_FOR).isBefore(now)) {
                stale.add(key);
            }
        }
        if (!stale.isEmpty()) {
            if (cache.size() > 100_000) {
                cache.clear(); // jobs renamed or deleted leave keys behind; rereading is cheap
            }
            UUID[] projects = stale.stream().map(Key::projectId).toArray(UUID[]::new);
            String[] names = stale.stream().map(Key::name).toArray(String[]::new);
            for (FleetDao.History row : h.attach(FleetDao.class).history(projects, names)) {
                Optional<Duration> median = Optional.ofNullable(row.medianMs()).map(Duration::ofMillis);
                cache.put(new Key(row.projectId(), row.name()), new Entry(median, now));
            }
        }
        Map<Key, Optional<Duration>> result = new HashMap<>();
        for (Key key : keys) {
            Entry entry = cache.get(key);
            result.put(key, entry == null ? Optional.empty() : entry.median());
        }
        return result;
    }
}
