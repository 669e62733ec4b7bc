package dev.gantry.server.status;

import java.util.Collection;

/**
 * The state of one component of the status page, or of the whole page. The first four are Atlassian Statuspage's
 * ladder, worst last; {@link #NO_DATA} and {@link #UNKNOWN} say honestly that nothing was measured, and are never
 * shown as operational. Only {@link #isIncident() degraded and worse} open an incident.
 */
public enum ComponentState {
    /** Every SLI within its objective. */
    OPERATIONAL("operational", "Operational", 0),
    /** An SLI over its objective: slower or with more errors than promised, but working. */
    DEGRADED("degraded", "Degraded performance", 1),
    /** Well over the objective: a part of what the component does fails for many users. */
    PARTIAL_OUTAGE("partial_outage", "Partial outage", 2),
    /** Far over the objective, or the component cannot work at all. */
    MAJOR_OUTAGE("major_outage", "Major outage", 3),
    /** The component is not measured yet (notifications until issue 33 feeds them). */
    NO_DATA("no_data", "No data yet", -1),
    /**
     * The figures cannot be read now (the database does not answer); {@link ComponentStatus#reason()} says since
     * when.
     */
    UNKNOWN("unknown", "Unknown", -1);

    private final String id;
    private final String label;
    private final int severity;

    ComponentState(String id, String label, int severity) {
        this.id = id;
        this.label = label;
        this.severity = severity;
    }

    /** The JSON value and a stable CSS class: {@code operational}, {@code partial_outage}, {@code no_data}, … */
    public String id() {
        return id;
    }

    /**
     * For people: "Operational", "Degraded performance", "Partial outage", "Major outage", "No data yet",
     * "Unknown".
     */
    public String label() {
        return label;
    }

    /** True for {@link #DEGRADED}, {@link #PARTIAL_OUTAGE} and {@link #MAJOR_OUTAGE}, the states incidents record. */
    public boolean isIncident() {
        return severity > 0;
    }

    /** True unless {@link #NO_DATA} or {@link #UNKNOWN}: the state was measured. */
    public boolean isMeasured() {
        return severity >= 0;
    }

    /** True when this is worse than {@code other}; states that were not measured are worse than none. */
    public boolean isWorseThan(ComponentState other) {
        return severity > other.severity;
    }

    /** The worse of the two measured states ({@code a} if neither is worse). */
    public static ComponentState worse(ComponentState a, ComponentState b) {
        return b.isWorseThan(a) ? b : a;
    }

    /**
     * The state of a page of components: the worst measured one, or {@link #UNKNOWN} when none was measured (a page
     * whose database does not answer says so rather than "operational").
     */
    public static ComponentState overall(Collection<ComponentState> states) {
        ComponentState worst = null;
        for (ComponentState s : states) {
            if (s.isMeasured() && (worst == null || s.isWorseThan(worst))) {
                worst = s;
            }
        }
        return worst == null ? UNKNOWN : worst;
    }

    /** The state whose {@link #id()} is {@code id}. */
    public static ComponentState ofId(String id) {
        for (ComponentState s : values()) {
            if (s.id.equals(id)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no component state '" + id + "'");
    }
}
