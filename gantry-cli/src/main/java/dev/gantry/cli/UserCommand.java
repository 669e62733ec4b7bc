package dev.gantry.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gantry user …}: users, their tokens and their roles, on a running server (the API of docs/server.md, "Users,
 * organizations and roles"). Each exits 0 when done, 1 when the server refused, 2 when it could not ask.
 */
@Command(name = "user", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Add users, issue their API tokens and give them roles in organizations.",
        subcommands = {UserCommand.Add.class, UserCommand.Token.class, UserCommand.RoleIn.class})
final class UserCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** A call whose answer is said in one line on success. */
    abstract static class Call extends ServerCall {
        @Override
        int call(GantryClient client, PrintWriter out) {
            GantryClient.Answer answer = send(client);
            if (!answer.ok()) {
                return fail(1, answer.message());
            }
            out.println(say(answer.json()));
            return 0;
        }

        abstract GantryClient.Answer send(GantryClient client);

        abstract String say(JsonNode answer);
    }

    @Command(name = "add", mixinStandardHelpOptions = true, description = "Add a user.")
    static final class Add extends Call {
        @Parameters(index = "0", paramLabel = "LOGIN")
        String login;

        @Option(names = "--name", paramLabel = "NAME", description = "Their name (default: the login).")
        String name;

        @Option(names = "--site-admin", description = "Make them an admin of every organization and of the server.")
        boolean siteAdmin;

        @Override
        GantryClient.Answer send(GantryClient client) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("login", login);
            if (name != null) {
                body.put("name", name);
            }
            body.put("site_admin", siteAdmin);
            return client.post("/api/v2/user", body);
        }

        @Override
        String say(JsonNode answer) {
            return "user " + answer.path("login").asText() + " added" + (siteAdmin ? " (site admin)" : "");
        }
    }

    @Command(name = "token", mixinStandardHelpOptions = true,
            description = "Issue an API token for LOGIN and print it; it is shown this once.")
    static final class Token extends Call {
        @Parameters(index = "0", paramLabel = "LOGIN")
        String login;

        @Option(names = "--label", paramLabel = "TEXT", description = "What the token is for (default: token).")
        String label;

        @Option(names = "--days", paramLabel = "N", description = "Days until it expires, 1-3650 (default: 90).")
        Integer days;

        @Override
        GantryClient.Answer send(GantryClient client) {
            Map<String, Object> body = new LinkedHashMap<>();
            if (label != null) {
                body.put("label", label);
            }
            if (days != null) {
                body.put("expires_in_days", days);
            }
            return client.post("/api/v2/user/" + login + "/token", body);
        }

        @Override
        String say(JsonNode answer) {
            return answer.path("token").asText() + "\n(expires " + answer.path("expires_at").asText()
                    + "; shown once: keep it now)";
        }
    }

    @Command(name = "role", mixinStandardHelpOptions = true,
            description = "Give LOGIN the role viewer, member or admin in organization ORG.")
    static final class RoleIn extends Call {
        @Parameters(index = "0", paramLabel = "ORG")
        String organization;

        @Parameters(index = "1", paramLabel = "LOGIN")
        String login;

        @Parameters(index = "2", paramLabel = "ROLE")
        String role;

        @Override
        GantryClient.Answer send(GantryClient client) {
            if (!role.matches("viewer|member|admin")) {
                throw new GantryClientException("ROLE is viewer, member or admin, got '" + role + "'");
            }
            return client.put("/api/v2/organization/" + organization + "/member/" + login,
                    "{\"role\": \"" + role + "\"}", "application/json");
        }

        @Override
        String say(JsonNode answer) {
            return answer.path("login").asText() + " is a " + answer.path("role").asText() + " of "
                    + answer.path("organization").asText();
        }
    }
}
