package dev.gantry.server;

import dev.gantry.server.agent.AgentSettings;
import java.util.Map;
import java.util.Objects;

/**
 * How the server listens. Read them with {@link #fromEnvironment} or start from {@link #defaults()}; every value is
 * checked when the settings are made, and a bad one is never replaced by a default.
 *
 * <p>The server listens on the loopback interface only ({@link #HOST}): agents on other machines, and the setting
 * to listen elsewhere, come with the agent protocol.
 *
 * @param port  the HTTP port on {@link #HOST} ({@code GANTRY_PORT}); 0 picks a free port, which
 *              {@link GantryServer#port()} then reports
 * @param agent the agent protocol's timings ({@code GANTRY_AGENT_…}, see {@link AgentSettings})
 */
public record ServerSettings(int port, AgentSettings agent) {
    /** The environment variable {@link #port()} is read from. */
    public static final String PORT_VARIABLE = "GANTRY_PORT";
    public static final int DEFAULT_PORT = 8080;
    /** The address the server binds to. */
    public static final String HOST = "127.0.0.1";

    /** The rule a port follows, as error messages state it. */
    public static final String PORT_RULE = "must be 0 (any free port) or an integer from 1 to 65535";

    public ServerSettings {
        Objects.requireNonNull(agent, "agent");
        if (!validPort(port)) {
            throw new IllegalArgumentException("port " + PORT_RULE + ", got " + port);
        }
    }

    /** {@code port} and the agent settings' defaults. */
    public ServerSettings(int port) {
        this(port, AgentSettings.defaults());
    }

    /** Every setting at its default: port {@link #DEFAULT_PORT}, {@link AgentSettings#defaults()}. */
    public static ServerSettings defaults() {
        return new ServerSettings(DEFAULT_PORT);
    }

    /**
     * Reads the settings from environment variables, usually {@code System.getenv()}. An unset variable means the
     * default; one set to an empty value is an error, as it usually means a deployment template forgot to fill it in.
     *
     * @throws InvalidServerSettingException naming the variable and its rule
     */
    public static ServerSettings fromEnvironment(Map<String, String> environment) {
        return new ServerSettings(portFromEnvironment(environment), AgentSettings.fromEnvironment(environment));
    }

    private static int portFromEnvironment(Map<String, String> environment) {
        String text = environment.get(PORT_VARIABLE);
        if (text == null) {
            return DEFAULT_PORT;
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(PORT_VARIABLE + " is set but empty; unset it to use the default "
                    + DEFAULT_PORT);
        }
        try {
            int port = Integer.parseInt(text.strip());
            if (validPort(port)) {
                return port;
            }
        } catch (NumberFormatException notAnInteger) {
            // reported below, like a number out of range
        }
        throw new InvalidServerSettingException(PORT_VARIABLE + " " + PORT_RULE + ", got '" + text + "'");
    }

    /** These settings with another port. */
    public ServerSettings withPort(int port) {
        return new ServerSettings(port, agent);
    }

    /** These settings with other agent timings. */
    public ServerSettings withAgent(AgentSettings agent) {
        return new ServerSettings(port, agent);
    }

    /** True when {@code port} follows {@link #PORT_RULE}. */
    public static boolean validPort(int port) {
        return port >= 0 && port <= 65535;
    }
}
