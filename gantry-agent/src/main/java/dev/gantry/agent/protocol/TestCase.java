package dev.gantry.agent.protocol;

/**
 * One test result as the protocol sends it.
 *
 * @param file    null when the report does not say
 * @param result  success, failure, error or skipped
 * @param runTime seconds
 * @param message the failure's message or text, null when there is none
 */
public record TestCase(String classname, String name, String file, String result, double runTime, String message) {
}
