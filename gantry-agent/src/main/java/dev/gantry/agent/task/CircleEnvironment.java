package dev.gantry.agent.task;

import dev.gantry.agent.protocol.Assignment;
import dev.gantry.config.plan.PlanJob;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The environment a task's processes see, built in CircleCI's order, a later one winning: the sandbox's base (on the
 * host shell, the agent host's variables less the agent's own {@code GANTRY_*} ones, so its token never reaches a
 * build; in a container nothing, the image's own being there already), then the project's and contexts' variables
 * (the assignment's secrets, which the server merged in their order), then CircleCI's built-in variables, then the
 * job's {@code environment}; each {@code run} step adds its own on top. Pure.
 */
final class CircleEnvironment {
    private CircleEnvironment() {
    }

    /**
     * @param home       the sandbox's home directory, exported as {@code HOME}
     * @param workingDir the job's working directory with {@code ~} expanded
     * @param server     the server's base URL, for {@code CIRCLE_BUILD_URL}
     * @param bashEnv    the sandbox's file for {@code BASH_ENV}
     * @param base       the sandbox's base environment
     */
    static Map<String, String> build(Assignment a, PlanJob job, Path home, Path workingDir, Path bashEnv,
                                     String server, Map<String, String> base) {
        Map<String, String> env = new LinkedHashMap<>(base);
        env.putAll(a.secrets());
        env.put("CI", "true");
        env.put("CIRCLECI", "true");
        putIfSet(env, "CIRCLE_BRANCH", a.pipeline().branch());
        putIfSet(env, "CIRCLE_TAG", a.pipeline().tag());
        putIfSet(env, "CIRCLE_SHA1", a.pipeline().revision());
        putIfSet(env, "CIRCLE_PULL_REQUEST", a.pipeline().reviewUrl());
        putIfSet(env, "CIRCLE_PULL_REQUESTS", a.pipeline().reviewUrl());
        putIfSet(env, "CIRCLE_PR_NUMBER", a.pipeline().reviewId());
        putIfSet(env, "CIRCLE_CONTINUATION_KEY", a.pipeline().continuationKey());
        env.put("CIRCLE_BUILD_NUM", Long.toString(a.job().number()));
        env.put("CIRCLE_JOB", a.job().name());
        env.put("CIRCLE_NODE_INDEX", Integer.toString(a.task().nodeIndex()));
        env.put("CIRCLE_NODE_TOTAL", Integer.toString(Math.max(1, a.job().parallelism())));
        env.put("CIRCLE_WORKFLOW_ID", a.workflow().id());
        env.put("CIRCLE_WORKFLOW_JOB_ID", a.job().id());
        env.put("CIRCLE_PIPELINE_ID", a.pipeline().id());
        env.put("CIRCLE_PIPELINE_NUMBER", Long.toString(a.pipeline().number()));
        env.put("CIRCLE_PROJECT_USERNAME", a.project().organizationName());
        env.put("CIRCLE_PROJECT_REPONAME", a.project().name());
        putIfSet(env, "CIRCLE_REPOSITORY_URL", a.project().vcsUrl());
        env.put("CIRCLE_WORKING_DIRECTORY", workingDir.toString());
        env.put("CIRCLE_BUILD_URL", server.replaceAll("/+$", "") + "/api/v2/project/" + a.project().slug()
                + "/job/" + a.job().number());
        env.put("HOME", home.toString());
        env.put("BASH_ENV", bashEnv.toString());
        env.putAll(job.environment());
        return env;
    }

    /** {@code base} with a step's variables on top. */
    static Map<String, String> withStep(Map<String, String> base, Map<String, String> step) {
        Map<String, String> env = new LinkedHashMap<>(base);
        env.putAll(step);
        return env;
    }

    private static void putIfSet(Map<String, String> env, String name, String value) {
        if (value != null) {
            env.put(name, value);
        }
    }
}
