package dev.gantry.server.dispatch;

import dev.gantry.queue.DatabaseHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Which of the database's signals are over their thresholds, in words an operator reads. Pure. */
final class DistressSignals {
    private DistressSignals() {
    }

    /** What is wrong with {@code health} under {@code settings}; empty when nothing is. */
    static List<String> of(DatabaseHealth health, DispatchSettings settings) {
        List<String> distress = new ArrayList<>();
        if (health.commitLatency().compareTo(settings.commitLatency()) > 0) {
            distress.add(String.format(Locale.ROOT, "a commit took %d ms (threshold %d ms)",
                    health.commitLatency().toMillis(), settings.commitLatency().toMillis()));
        }
        if (health.walBytesPerSecond() > settings.walBytesPerSecond()) {
            distress.add(String.format(Locale.ROOT, "WAL written at %.1f MiB/s (threshold %.1f MiB/s)",
                    health.walBytesPerSecond() / (1 << 20), settings.walBytesPerSecond() / (1 << 20)));
        }
        if (health.deadTuples() > settings.deadTuples()) {
            distress.add(String.format(Locale.ROOT, "%,d dead tuples in the queue's tables (threshold %,d)",
                    health.deadTuples(), settings.deadTuples()));
        }
        return distress;
    }
}
