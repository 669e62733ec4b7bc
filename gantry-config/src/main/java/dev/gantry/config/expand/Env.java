package dev.gantry.config.expand;

import dev.gantry.config.yaml.YNode;
import java.util.Map;

/**
 * What {@code << … >>} can read at one place in a config: the pipeline values everywhere, the parameters of the job,
 * command or executor being expanded, and the matrix values of a workflow entry.
 *
 * @param parameters null where no parameters are in scope (workflows)
 * @param matrix     null outside a matrix entry
 * @param owner      what the parameters belong to, for messages ("job 'build'")
 */
record Env(PipelineValues pipeline, Map<String, YNode> parameters, Map<String, YNode> matrix, String owner) {

    static Env pipelineOnly(PipelineValues pipeline) {
        return new Env(pipeline, null, null, null);
    }

    Env withParameters(Map<String, YNode> params, String owner) {
        return new Env(pipeline, params, null, owner);
    }
}
