package dev.gantry.server.status;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What this server saw of each component leaving operational and coming back, kept in memory, so that the incident
 * writer records it even when it could not write at the time: a database outage is seen while nothing can be
 * written, and recorded, with its real start and end, once writes work again. Components whose state is
 * {@link ComponentState#UNKNOWN} or {@link ComponentState#NO_DATA} neither start nor end an episode. Pure: times come
 * from the caller. One thread (the evaluation) uses it.
 */
final class Episodes {
    /**
     * One stretch of a component in an incident state.
     *
     * @param end null while it lasts
     */
    record Episode(String component, String name, Instant start, ComponentState worst, String reason, Instant end) {
        Episode worsened(ComponentState state, String why) {
            return state.isWorseThan(worst) ? new Episode(component, name, start, state, why, end) : this;
        }

        Episode ended(Instant at) {
            return new Episode(component, name, start, worst, reason, at);
        }
    }

    /** The most ended episodes kept for a writer that cannot write; the oldest go first. */
    static final int MAX_ENDED = 200;

    private final Map<String, Episode> current = new LinkedHashMap<>();
    private final List<Episode> ended = new ArrayList<>();

    /** Takes in one evaluation's rows at {@code at}. A component no longer shown ends its episode. */
    void observe(Instant at, List<ComponentStatus> rows) {
        Set<String> shown = new HashSet<>();
        for (ComponentStatus row : rows) {
            shown.add(row.id());
            ComponentState state = row.state();
            if (!state.isMeasured()) {
                continue;
            }
            Episode episode = current.get(row.id());
            if (state.isIncident()) {
                current.put(row.id(), episode == null
                        ? new Episode(row.id(), row.name(), at, state, row.reason(), null)
                        : episode.worsened(state, row.reason()));
            } else if (episode != null) {
                end(episode, at);
            }
        }
        for (Episode episode : List.copyOf(current.values())) {
            if (!shown.contains(episode.component())) {
                end(episode, at);
            }
        }
    }

    private void end(Episode episode, Instant at) {
        current.remove(episode.component());
        ended.add(episode.ended(at));
        if (ended.size() > MAX_ENDED) {
            ended.removeFirst();
        }
    }

    /** The episodes that last, by component. */
    Map<String, Episode> current() {
        return Map.copyOf(current);
    }

    /** The episode of {@code component} that lasts, if any. */
    Optional<Episode> current(String component) {
        return Optional.ofNullable(current.get(component));
    }

    /** The episodes that ended and are not recorded yet, the oldest first. */
    List<Episode> ended() {
        return List.copyOf(ended);
    }

    /** Forgets the ended episodes: they are recorded (or another server records them). */
    void forgetEnded() {
        ended.clear();
    }
}
