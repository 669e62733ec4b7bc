package dev.gantry.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a pipeline knows about itself when its config is compiled: the git ref, pipeline parameter values and the
 * {@code pipeline.*} values that {@code << pipeline.x >>} reads.
 *
 * <p>Exactly one of {@code branch} and {@code tag} is set. Parameter values are given as text (as they arrive from a
 * command line or an API call) or as typed values (Boolean, Long, String); the compiler checks them against the
 * declared types.
 */
public record PipelineContext(
        String branch,
        String tag,
        Map<String, Object> parameters,
        long number,
        String id,
        String revision,
        String triggerSource,
        String projectGitUrl,
        String projectType,
        String projectSlug,
        String defaultBranch,
        String baseRevision) {

    public static final String DEFAULT_BRANCH = "main";
    public static final String DEFAULT_ID = "00000000-0000-0000-0000-000000000000";
    public static final String DEFAULT_REVISION = "0000000000000000000000000000000000000000";
    public static final String DEFAULT_TRIGGER_SOURCE = "api";

    public PipelineContext {
        if ((branch == null) == (tag == null)) {
            throw new IllegalArgumentException("exactly one of branch and tag must be set (branch=" + branch + ", tag=" + tag + ")");
        }
        if (number < 1) {
            throw new IllegalArgumentException("pipeline number must be at least 1, got " + number);
        }
        parameters = Map.copyOf(new LinkedHashMap<>(Objects.requireNonNull(parameters, "parameters")));
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(triggerSource, "triggerSource");
        Objects.requireNonNull(projectGitUrl, "projectGitUrl");
        Objects.requireNonNull(projectType, "projectType");
        Objects.requireNonNull(projectSlug, "projectSlug");
        Objects.requireNonNull(defaultBranch, "defaultBranch");
        Objects.requireNonNull(baseRevision, "baseRevision");
    }

    /** A context for branch {@value #DEFAULT_BRANCH}, pipeline number 1, and no parameters. */
    public static PipelineContext defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** True when this pipeline was triggered by a tag push rather than a branch. */
    public boolean isTag() {
        return tag != null;
    }

    /** Builds a context; unset values take the {@code DEFAULT_*} constants. */
    public static final class Builder {
        private String branch;
        private String tag;
        private final Map<String, Object> parameters = new LinkedHashMap<>();
        private long number = 1;
        private String id = DEFAULT_ID;
        private String revision = DEFAULT_REVISION;
        private String triggerSource = DEFAULT_TRIGGER_SOURCE;
        private String projectGitUrl = "";
        private String projectType = "gantry";
        private String projectSlug = "";
        private String defaultBranch = DEFAULT_BRANCH;
        private String baseRevision = "";

        private Builder() {
        }

        public Builder branch(String branch) {
            this.branch = branch;
            this.tag = null;
            return this;
        }

        public Builder tag(String tag) {
            this.tag = tag;
            this.branch = null;
            return this;
        }

        public Builder parameter(String name, Object value) {
            parameters.put(name, value);
            return this;
        }

        public Builder parameters(Map<String, ?> values) {
            parameters.putAll(values);
            return this;
        }

        public Builder number(long number) {
            this.number = number;
            return this;
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder revision(String revision) {
            this.revision = revision;
            return this;
        }

        public Builder triggerSource(String triggerSource) {
            this.triggerSource = triggerSource;
            return this;
        }

        public Builder projectGitUrl(String projectGitUrl) {
            this.projectGitUrl = projectGitUrl;
            return this;
        }

        public Builder projectType(String projectType) {
            this.projectType = projectType;
            return this;
        }

        public Builder projectSlug(String projectSlug) {
            this.projectSlug = projectSlug;
            return this;
        }

        public Builder defaultBranch(String defaultBranch) {
            this.defaultBranch = defaultBranch;
            return this;
        }

        /** {@code pipeline.git.base_revision}: a pull request's base commit; empty (the default) otherwise. */
        public Builder baseRevision(String baseRevision) {
            this.baseRevision = baseRevision;
            return this;
        }

        public PipelineContext build() {
            String b = branch == null && tag == null ? defaultBranch : branch;
            return new PipelineContext(b, tag, parameters, number, id, revision, triggerSource, projectGitUrl,
                    projectType, projectSlug, defaultBranch, baseRevision);
        }
    }
}
