package dev.gantry.notify;

import java.time.Duration;
import java.time.Instant;

/**
 * What a person is told of a workflow's event, whatever the medium (Slack, e-mail): a headline with an emoji, a
 * colour, and the facts (project, branch or tag, commit, who, duration, the UI's page). Pure, immutable.
 */
public record WorkflowSummary(String headline, String emoji, String colour, String project, String workflow,
                              String status, String ref, String commit, String actor, String duration, String url) {

    /** The summary of {@code event}, a workflow event. */
    public static WorkflowSummary of(Event event) {
        Event.Snapshot s = event.snapshot();
        String status = s.workflow().status();
        boolean started = event.type() == Event.Type.WORKFLOW_STARTED;
        String emoji = started ? "🔄" : switch (status) {
            case "success" -> "✅";
            case "canceled" -> "⏹️";
            default -> Rule.FAILURES.contains(status) ? "❌" : "ℹ️";
        };
        String colour = started ? "#439fe0" : switch (status) {
            case "success" -> "#2eb67d";
            case "canceled" -> "#868686";
            default -> Rule.FAILURES.contains(status) ? "#e01e5a" : "#439fe0";
        };
        String verb = started ? "started" : switch (status) {
            case "success" -> "succeeded";
            case "canceled" -> "was canceled";
            case "error" -> "errored";
            default -> status;
        };
        Event.Vcs vcs = s.pipeline().vcs();
        String ref = vcs == null ? "" : vcs.branch() != null ? vcs.branch() : vcs.tag() != null ? "tag " + vcs.tag() : "";
        String revision = vcs == null || vcs.revision() == null ? "" : vcs.revision();
        String commit = revision.length() > 7 ? revision.substring(0, 7) : revision;
        Event.Actor actor = s.pipeline().trigger() == null ? null : s.pipeline().trigger().actor();
        return new WorkflowSummary(
                "Workflow " + s.workflow().name() + " " + verb + " in " + s.project().slug(), emoji, colour,
                s.project().slug(), s.workflow().name(), status, ref, commit,
                actor == null || actor.login() == null ? "unknown" : actor.login(),
                duration(s.workflow().createdAt(), s.workflow().stoppedAt()), s.workflow().url());
    }

    /** {@code 2m 05s} from two API times, or an empty string when the workflow has not stopped. */
    static String duration(String from, String to) {
        if (from == null || to == null) {
            return "";
        }
        Duration took = Duration.between(Instant.parse(from), Instant.parse(to));
        if (took.isNegative()) {
            return "";
        }
        long hours = took.toHours();
        return hours > 0 ? "%dh %02dm".formatted(hours, took.toMinutesPart())
                : "%dm %02ds".formatted(took.toMinutes(), took.toSecondsPart());
    }
}
