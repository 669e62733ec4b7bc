/** YAML text to positioned, immutable nodes: aliases followed, merge keys merged, hostile documents bounded. */
package dev.gantry.config.yaml;
