/**
 * The {@code config} benchmark: how fast {@link dev.gantry.config.ConfigCompiler} turns a config into a plan, next to
 * the floor of merely parsing the same YAML with SnakeYAML.
 */
package dev.gantry.bench.config;
