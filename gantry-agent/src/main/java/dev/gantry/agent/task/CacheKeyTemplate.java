package dev.gantry.agent.task;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders a cache key template the way CircleCI does. Supported:
 * <ul>
 *   <li>{@code {{ checksum "FILE" }}}: the base64 (standard alphabet, padded) SHA-256 of the file's bytes, as
 *       CircleCI; FILE is relative to the working directory, {@code ~} is the task's home</li>
 *   <li>{@code {{ .Branch }}}, {@code {{ .Revision }}}, {@code {{ .BuildNum }}}: the pipeline's branch (empty for a
 *       tag), revision and the job number</li>
 *   <li>{@code {{ .Environment.NAME }}}: the variable from the task's environment; {@code <no value>} when unset,
 *       as Go templates print it</li>
 *   <li>{@code {{ epoch }}}: seconds since 1970; {@code {{ arch }}}: {@code OS-ARCH} of the agent, like
 *       {@code linux-amd64} (simpler than CircleCI's {@code arch1-linux-amd64-6_85})</li>
 * </ul>
 * Anything else in braces is an error naming it. Pure: values come from {@link Values}.
 */
final class CacheKeyTemplate {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(.*?)}}");
    private static final Pattern CHECKSUM = Pattern.compile("checksum\\s+\"([^\"]+)\"");
    private static final Pattern ENVIRONMENT = Pattern.compile("\\.Environment\\.([A-Za-z_][A-Za-z0-9_]*)");

    /** Where the template's values come from. */
    interface Values {
        String branch();

        String revision();

        long buildNum();

        /** null when the variable is not set */
        String environment(String name);

        long epochSeconds();

        String arch();

        /** @throws IllegalArgumentException if the file cannot be read */
        String checksum(String file);
    }

    private CacheKeyTemplate() {
    }

    /**
     * The key for {@code template}.
     *
     * @throws IllegalArgumentException for an unknown placeholder or an unreadable checksum file
     */
    static String render(String template, Values values) {
        Matcher m = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(value(m.group(1).strip(), values)));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String value(String expression, Values values) {
        switch (expression) {
            case ".Branch" -> {
                return values.branch() == null ? "" : values.branch();
            }
            case ".Revision" -> {
                return values.revision() == null ? "" : values.revision();
            }
            case ".BuildNum" -> {
                return Long.toString(values.buildNum());
            }
            case "epoch" -> {
                return Long.toString(values.epochSeconds());
            }
            case "arch" -> {
                return values.arch();
            }
            default -> {
                Matcher checksum = CHECKSUM.matcher(expression);
                if (checksum.matches()) {
                    return values.checksum(checksum.group(1));
                }
                Matcher env = ENVIRONMENT.matcher(expression);
                if (env.matches()) {
                    String value = values.environment(env.group(1));
                    return value == null ? "<no value>" : value;
                }
                throw new IllegalArgumentException("unknown cache key template '{{ " + expression + " }}': use "
                        + "checksum \"FILE\", .Branch, .Revision, .BuildNum, .Environment.NAME, epoch or arch");
            }
        }
    }

    /** The agent's {@code OS-ARCH}, with Go's names ({@code amd64}, {@code arm64}) as CircleCI uses them. */
    static String arch(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
        if (os.startsWith("mac")) {
            os = "darwin";
        } else if (os.startsWith("windows")) {
            os = "windows";
        }
        String arch = switch (osArch) {
            case "x86_64", "amd64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> osArch;
        };
        return os + "-" + arch;
    }
}
