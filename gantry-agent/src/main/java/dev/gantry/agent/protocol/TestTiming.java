package dev.gantry.agent.protocol;

/** One test's duration in the job's latest successful run, as {@code GET /tasks/…/timings} lists it. */
public record TestTiming(String file, String classname, String name, double runTime) {
}
