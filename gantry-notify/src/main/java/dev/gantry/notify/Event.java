package dev.gantry.notify;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Arrays;
import java.util.UUID;

/**
 * Something that happened that destinations may be told of, with a {@link Snapshot} of what it concerns taken in the
 * transaction of the change: a delivery sent an hour later still says what was true then. Times are ISO 8601 UTC
 * strings with milliseconds, as the API writes them. Immutable.
 *
 * @param id         the event's id (one per change, whatever the number of destinations)
 * @param happenedAt when the change committed, by the server's clock
 */
public record Event(UUID id, Type type, String happenedAt, Snapshot snapshot) {

    /**
     * The kinds of event, with CircleCI's words; {@code workflow-started} is Gantry's, for commit statuses, and
     * {@code budget-alert} Gantry's, for the Slack and e-mail destinations that ask for an organization's usage budget
     * alerts.
     */
    public enum Type {
        WORKFLOW_STARTED("workflow-started"),
        WORKFLOW_COMPLETED("workflow-completed"),
        JOB_COMPLETED("job-completed"),
        BUDGET_ALERT("budget-alert");

        private final String word;

        Type(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        /** Whether a webhook may ask for it: CircleCI's two types only, so payloads keep CircleCI's shape. */
        public boolean forWebhooks() {
            return this == WORKFLOW_COMPLETED || this == JOB_COMPLETED;
        }

        /** The type {@code word} names, or null. */
        public static Type ofWord(String word) {
            return Arrays.stream(values()).filter(t -> t.word.equals(word)).findFirst().orElse(null);
        }
    }

    /**
     * What the event concerns, in CircleCI's webhook sub-entities; {@code job} only for {@code job-completed}. A
     * {@code budget-alert} concerns an organization alone: {@code organization} and {@code budget}, nothing else.
     * Serialised with {@link #JSON} this is the payload's body without its envelope.
     */
    public record Snapshot(Project project, Organization organization, Workflow workflow, Pipeline pipeline, Job job,
                           Budget budget) {

        /** A workflow's or a job's event. */
        public Snapshot(Project project, Organization organization, Workflow workflow, Pipeline pipeline, Job job) {
            this(project, organization, workflow, pipeline, job, null);
        }

        /** An organization's usage budget alert. */
        public static Snapshot budgetAlert(Organization organization, Budget budget) {
            return new Snapshot(null, organization, null, null, null, budget);
        }
    }

    public record Project(UUID id, String name, String slug) {
    }

    public record Organization(UUID id, String name) {
    }

    public record Workflow(UUID id, String name, String status, String createdAt, String stoppedAt, String url) {
    }

    public record Pipeline(UUID id, long number, String createdAt, Trigger trigger, Vcs vcs) {
    }

    public record Trigger(String type, String receivedAt, Actor actor) {
    }

    public record Actor(String login) {
    }

    /** The commit the pipeline ran; {@code branch} or {@code tag} (one of them, or neither). */
    public record Vcs(String providerName, String originRepositoryUrl, String targetRepositoryUrl, String revision,
                      String branch, String tag) {
    }

    public record Job(UUID id, long number, String name, String status, String startedAt, String stoppedAt) {
    }

    /**
     * The threshold of an organization's monthly usage budget that its credits reached (docs/usage.md).
     *
     * @param month   the month, {@code 2026-12}
     * @param credits the month's credits when the threshold was reached
     * @param url     the web UI's usage page of the organization for the month; null in an alert recorded before
     *                the UI had one
     */
    public record Budget(String month, int thresholdPercent, long budgetCredits, long credits, String url) {
        /** Without the link, which the server adds where it knows its external URL. */
        public Budget(String month, int thresholdPercent, long budgetCredits, long credits) {
            this(month, thresholdPercent, budgetCredits, credits, null);
        }

        public Budget withUrl(String url) {
            return new Budget(month, thresholdPercent, budgetCredits, credits, url);
        }
    }

    /** Snake case, absent fields left out, as CircleCI's payloads. Do not reconfigure it. */
    public static final ObjectMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** The snapshot as stored with its event. */
    public static String snapshotJson(Snapshot snapshot) {
        try {
            return JSON.writeValueAsString(snapshot);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a snapshot did not serialise", e);
        }
    }

    /** A snapshot stored by {@link #snapshotJson}. */
    public static Snapshot snapshotOf(String json) {
        try {
            return JSON.readValue(json, Snapshot.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored snapshot is not one: " + e.getOriginalMessage(), e);
        }
    }
}
