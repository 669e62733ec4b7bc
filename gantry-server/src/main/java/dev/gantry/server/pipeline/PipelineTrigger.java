package dev.gantry.server.pipeline;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * What started a pipeline, as CircleCI records it: the kind of trigger, who, when, and for a trigger from a forge what
 * the forge said about the change. Immutable.
 *
 * @param actor          who triggered: {@value #ADMIN} for the admin token, the forge user's login for a webhook
 * @param actorAvatarUrl the forge user's picture, or null
 * @param receivedAt     when the server received the trigger
 * @param vcs            what a forge's webhook said; {@link Vcs#NONE} for an API trigger
 */
public record PipelineTrigger(Type type, String actor, String actorAvatarUrl, Instant receivedAt, Vcs vcs) {
    /** The actor of a trigger made with the admin token, the one API caller there is. */
    public static final String ADMIN = "admin";

    /** CircleCI's {@code trigger.type}, also {@code pipeline.trigger_source}. */
    public enum Type {
        API("api"), WEBHOOK("webhook"), SCHEDULED_PIPELINE("scheduled_pipeline");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        /** The word in the API, the compiler's {@code pipeline.trigger_source} and the database. */
        public String label() {
            return label;
        }

        public static Type ofLabel(String label) {
            return Arrays.stream(values()).filter(type -> type.label.equals(label)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("unknown trigger type '" + label + "'"));
        }
    }

    /**
     * What a forge said about the change; every field may be null.
     *
     * @param provider            {@code github}, {@code gitlab} or {@code gitea}
     * @param baseRevision        a pull request's base commit: {@code pipeline.git.base_revision}
     * @param reviewId            a pull request's number (GitLab: the merge request's iid)
     * @param reviewUrl           a pull request's page
     * @param commitSubject       the first line of the commit message
     * @param commitBody          the rest of the commit message, without the blank line after the subject
     * @param commitAuthor        the commit's author's name
     * @param originRepositoryUrl the repository the commits come from (a fork's for a pull request from a fork)
     * @param targetRepositoryUrl the repository the change goes into
     */
    public record Vcs(String provider, String baseRevision, String reviewId, String reviewUrl, String commitSubject,
                      String commitBody, String commitAuthor, String originRepositoryUrl,
                      String targetRepositoryUrl) {
        public static final Vcs NONE = new Vcs(null, null, null, null, null, null, null, null, null);
    }

    public PipelineTrigger {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(receivedAt, "receivedAt");
        Objects.requireNonNull(vcs, "vcs");
    }

    /** A trigger through the API by {@code actor}, received at {@code at}. */
    public static PipelineTrigger api(String actor, Instant at) {
        return new PipelineTrigger(Type.API, actor, null, at, Vcs.NONE);
    }

    /** {@code message} split as CircleCI's {@code commit.subject} and {@code commit.body}: first line, rest. */
    public static String[] subjectAndBody(String message) {
        if (message == null) {
            return new String[] {null, null};
        }
        String text = message.strip();
        int end = text.indexOf('\n');
        return end < 0 ? new String[] {text, null}
                : new String[] {text.substring(0, end).strip(), text.substring(end + 1).strip()};
    }
}
