/**
 * A project's insights, as CircleCI's Insights show them: per workflow its runs, success rate and durations over a
 * window of days (and per day, for charts), and its slowest and flakiest tests. Read-only, from the rows the
 * orchestrator and the agents leave behind ({@code gantry.workflow}, {@code gantry.job}, {@code gantry.test_case});
 * the web UI renders {@link dev.gantry.server.insights.ProjectInsights.Report}, and
 * {@link dev.gantry.server.insights.InsightsRoutes} answers CircleCI's Insights API from the same reads.
 */
package dev.gantry.server.insights;
