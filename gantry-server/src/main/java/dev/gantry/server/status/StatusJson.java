package dev.gantry.server.status;

import dev.gantry.server.http.Json;
import java.time.Instant;
import java.util.List;

/**
 * The JSON form of a {@link StatusReport}, {@code GET /status.json}, in the API's conventions (snake_case, times as
 * ISO-8601 UTC); its shape is in docs/server.md. States are {@link ComponentState#id()}s. Stateless.
 */
final class StatusJson {
    private StatusJson() {
    }

    record ReportJson(String evaluatedAt, String status, String headline, String staleSince, WindowsJson windows,
                      List<ComponentJson> components, List<IncidentJson> incidents) {
    }

    record WindowsJson(long shortSeconds, long longSeconds) {
    }

    record ComponentJson(String id, String name, String group, String state, String stateLabel, String reason,
                         String since, List<SliJson> slis) {
    }

    record SliJson(String name, String label, Long windowSeconds, double value, String unit, String valueText,
                   long events, Double objective, String objectiveText) {
    }

    record IncidentJson(String id, String component, String componentName, String worstState, String reason,
                        String startedAt, String endedAt, String updatedAt, List<NoteJson> notes) {
    }

    record NoteJson(String at, String author, String message) {
    }

    static ReportJson of(StatusReport r) {
        return new ReportJson(Json.time(r.evaluatedAt()), r.overall().id(), r.headline(), time(r.staleSince()),
                new WindowsJson(r.shortWindow().toSeconds(), r.longWindow().toSeconds()),
                r.components().stream().map(StatusJson::of).toList(),
                r.incidents().stream().map(StatusJson::of).toList());
    }

    static ComponentJson of(ComponentStatus c) {
        return new ComponentJson(c.id(), c.name(), c.group(), c.state().id(), c.state().label(), c.reason(),
                time(c.since()), c.slis().stream().map(StatusJson::of).toList());
    }

    static SliJson of(Sli s) {
        return new SliJson(s.name(), s.label(), s.window() == null ? null : s.window().toSeconds(), s.value(),
                s.unit() == Sli.Unit.RATIO ? "ratio" : "ms", s.valueText(), s.events(), s.objective(),
                s.objectiveText());
    }

    static IncidentJson of(Incident i) {
        return new IncidentJson(i.id().toString(), i.componentId(), i.componentName(), i.worstState().id(),
                i.reason(), Json.time(i.startedAt()), time(i.endedAt()), Json.time(i.updatedAt()),
                i.notes().stream().map(n -> new NoteJson(Json.time(n.at()), n.author(), n.message())).toList());
    }

    private static String time(Instant at) {
        return at == null ? null : Json.time(at);
    }
}
