/**
 * What users read about a job's run, in CircleCI's API v2 shapes under {@code /api/v2} (admin token): the output of
 * its nodes, also followed live as server-sent events ({@link dev.gantry.server.results.OutputFollower}), its
 * artifacts and its test results. Agents write all of it through {@code dev.gantry.server.agent}; this package only
 * reads.
 */
package dev.gantry.server.results;
