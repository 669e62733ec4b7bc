package dev.gantry.server.status;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The status page as one evaluation computed it: every component's state and the incident history. What
 * {@code /status}, {@code /status.json} and {@code /status.atom} render; get the current one from
 * {@link StatusPage#current()}. Immutable.
 *
 * @param evaluatedAt  when the figures were read (or, when they could not be, when that was last tried)
 * @param overall      the worst measured state of the components ({@link ComponentState#overall})
 * @param components   in page order: API, pipeline intake, job starts (smallest class first), job output,
 *                     notifications, database
 * @param incidents    the latest first: every open one and the most recent closed ones, at most
 *                     {@link #HISTORY_LIMIT}
 * @param shortWindow  the window that decides the states (5 minutes by default)
 * @param longWindow   the window shown for context (60 minutes by default)
 * @param staleSince   when the figures stopped being current because the database could not be read; null while
 *                     they are current. Rows other than the database then show {@link ComponentState#UNKNOWN}
 */
public record StatusReport(Instant evaluatedAt, ComponentState overall, List<ComponentStatus> components,
                           List<Incident> incidents, Duration shortWindow, Duration longWindow, Instant staleSince) {
    /** The most incidents a report carries (every open one, then the latest closed ones). */
    public static final int HISTORY_LIMIT = 50;

    public StatusReport {
        Objects.requireNonNull(evaluatedAt, "evaluatedAt");
        Objects.requireNonNull(overall, "overall");
        Objects.requireNonNull(shortWindow, "shortWindow");
        Objects.requireNonNull(longWindow, "longWindow");
        components = List.copyOf(components);
        incidents = List.copyOf(incidents);
    }

    /** The component whose {@link ComponentStatus#id()} is {@code id}. */
    public Optional<ComponentStatus> component(String id) {
        return components.stream().filter(c -> c.id().equals(id)).findFirst();
    }

    /** The open incidents, the latest first. */
    public List<Incident> openIncidents() {
        return incidents.stream().filter(Incident::isOpen).toList();
    }

    /** The incidents of one component, the latest first. */
    public List<Incident> incidentsOf(String componentId) {
        return incidents.stream().filter(i -> i.componentId().equals(componentId)).toList();
    }

    /** True when the figures are not current ({@link #staleSince()} is set). */
    public boolean isStale() {
        return staleSince != null;
    }

    /** One line for the top of the page: "All systems operational", or the worst state and how many rows have it. */
    public String headline() {
        if (overall == ComponentState.OPERATIONAL) {
            return "All systems operational";
        }
        if (!overall.isMeasured()) {
            return "Status unknown";
        }
        long affected = components.stream().filter(c -> c.state() == overall).count();
        return overall.label() + " (" + Texts.counted(affected, "component") + ")";
    }
}
