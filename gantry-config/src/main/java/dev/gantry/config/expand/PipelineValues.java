package dev.gantry.config.expand;

import dev.gantry.config.PipelineContext;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code << pipeline.* >>} values of one pipeline, and its bound pipeline parameters. */
final class PipelineValues {
    private final Map<String, Object> values = new LinkedHashMap<>();
    private final Map<String, YNode> parameters;

    PipelineValues(PipelineContext context, Map<String, YNode> parameters) {
        this.parameters = parameters;
        values.put("id", context.id());
        values.put("number", context.number());
        values.put("project.git_url", context.projectGitUrl());
        values.put("project.type", context.projectType());
        values.put("project.slug", context.projectSlug());
        values.put("git.branch", context.branch() == null ? "" : context.branch());
        values.put("git.tag", context.tag() == null ? "" : context.tag());
        values.put("git.revision", context.revision());
        values.put("git.base_revision", context.baseRevision());
        values.put("git.branch.is_default", context.defaultBranch().equals(context.branch()));
        values.put("trigger_source", context.triggerSource());
        values.put("in_setup", false);
        values.put("schedule.name", "");
        values.put("schedule.id", "");
    }

    /** The value of {@code pipeline.<name>} as a node at {@code pos}, or null when there is no such value. */
    YNode get(String name, Pos pos) {
        if (name.startsWith("parameters.")) {
            return parameters.get(name.substring("parameters.".length()));
        }
        if (name.startsWith("trigger_parameters.")) {
            return YNode.Scalar.of("", pos); // values of other trigger kinds: empty, as CircleCI gives them
        }
        if (!values.containsKey(name)) {
            return null;
        }
        Object v = values.get(name);
        return new YNode.Scalar(v, String.valueOf(v), pos);
    }

    Iterable<String> names() {
        java.util.List<String> all = new java.util.ArrayList<>(values.keySet());
        for (String p : parameters.keySet()) {
            all.add("parameters." + p);
        }
        return all;
    }
}
