package dev.gantry.server.status;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One stretch of time a component was degraded or worse, as the status page computed it: opened when the component
 * left operational, closed when it came back. Admins add {@link Note}s; nobody edits or hides an incident. Immutable.
 *
 * @param id            stable on every server; the Atom entry's id is {@code urn:uuid:} and this
 * @param componentId   the {@link ComponentStatus#id()} of the component
 * @param componentName its name when the incident opened
 * @param worstState    the worst state it reached
 * @param reason        why, as the component's reason said at the worst state
 * @param startedAt     when the component left operational
 * @param endedAt       when it came back; null while the incident is open
 * @param updatedAt     the last change: opened, worsened, closed or a note added (the Atom entry's {@code updated})
 * @param notes         admins' notes, oldest first
 */
public record Incident(UUID id, String componentId, String componentName, ComponentState worstState, String reason,
                       Instant startedAt, Instant endedAt, Instant updatedAt, List<Note> notes) {
    /**
     * An admin's note on an incident, e.g. what is being done about it.
     *
     * @param at      when it was added
     * @param author  the login of the admin who added it
     * @param message as written; plain text (the pages escape it)
     */
    public record Note(Instant at, String author, String message) {
        public Note {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(author, "author");
            Objects.requireNonNull(message, "message");
        }
    }

    public Incident {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(componentId, "componentId");
        Objects.requireNonNull(componentName, "componentName");
        Objects.requireNonNull(worstState, "worstState");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        notes = List.copyOf(notes);
    }

    /** True while the component has not come back. */
    public boolean isOpen() {
        return endedAt == null;
    }

    /** How long it lasted, once closed. */
    public Optional<Duration> duration() {
        return endedAt == null ? Optional.empty() : Optional.of(Duration.between(startedAt, endedAt));
    }

    /** How long it has lasted by {@code now}: its duration once closed. */
    public Duration duration(Instant now) {
        return Duration.between(startedAt, endedAt != null ? endedAt : now);
    }

    /** {@link #duration(Instant)} for people: {@code 7m12s}. */
    public String durationText(Instant now) {
        return Texts.duration(duration(now));
    }

    /** A title for a list or a feed: "Job starts: large: partial outage (resolved)". */
    public String title() {
        return componentName + ": " + worstState.label().toLowerCase(java.util.Locale.ROOT)
                + (isOpen() ? "" : " (resolved)");
    }
}
