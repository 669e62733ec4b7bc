/**
 * The compiler's output: a {@link dev.gantry.config.plan.Plan} of workflows and fully expanded job instances, and
 * its deterministic JSON and flattened-YAML renderings. This is the contract with the orchestrator and the agent.
 */
package dev.gantry.config.plan;
