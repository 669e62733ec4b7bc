package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import org.yaml.snakeyaml.Yaml;

/** Runs the picocli command tree in-process, as {@code gantry.jar} would, on config files in a temp directory. */
class CliTest {
    static final String VALID = """
            version: 2.1
            jobs:
              build:
                docker:
                  - image: cimg/base:2024.01
                steps:
                  - checkout
                  - run: echo hello
            workflows:
              main:
                jobs:
                  - build
            """;

    static final String UNKNOWN_REQUIREMENT = """
            version: 2.1
            jobs:
              build:
                docker:
                  - image: cimg/base:2024.01
                steps:
                  - run: echo hello
            workflows:
              main:
                jobs:
                  - build:
                      requires: [biuld-that-does-not-exist]
            """;

    @TempDir
    Path dir;

    Path valid;
    Path invalid;

    @BeforeEach
    void writeConfigs() throws IOException {
        valid = Files.writeString(dir.resolve("valid.yml"), VALID);
        invalid = Files.writeString(dir.resolve("invalid.yml"), UNKNOWN_REQUIREMENT);
    }

    record Run(int code, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }
    }

    static Run gantry(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = GantryCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void validate_accepts_a_valid_config() {
        Run run = gantry("config", "validate", valid.toString());

        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.outLines()).first().isEqualTo(valid + ": valid");
    }

    @Test
    void process_prints_the_plan_as_json() {
        Run run = gantry("config", "process", valid.toString(), "--branch", "feature/x", "--pipeline-number", "7");

        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out()).startsWith("{\n").endsWith("}\n").contains("\"name\": \"main\"", "\"job\": \"build\"");
    }

    @Test
    void process_prints_a_flattened_version_2_config_with_format_yaml() {
        Run run = gantry("config", "process", valid.toString(), "--format", "yaml", "--unfiltered");

        assertThat(run.code()).as(run.out()).isZero();
        Map<String, Object> doc = new Yaml().load(run.out());
        assertThat(doc).containsEntry("version", 2).containsKeys("jobs", "workflows");
    }

    @Test
    void validate_prints_each_problem_with_its_position_and_exits_1() {
        Run run = gantry("config", "validate", invalid.toString());

        assertThat(run.code()).isEqualTo(1);
        assertThat(run.outLines()).isNotEmpty()
                .allMatch(line -> line.matches("\\Q" + invalid + "\\E:\\d+:\\d+: (error|warning): .+"))
                .anyMatch(line -> line.contains(": error: "));
    }

    @Test
    void process_prints_errors_on_stdout_and_exits_1() {
        Run run = gantry("config", "process", invalid.toString());

        assertThat(run.code()).isEqualTo(1);
        assertThat(run.outLines()).isNotEmpty().allMatch(line -> line.startsWith(invalid + ":") && line.contains(": error: "));
    }

    @Test
    void a_missing_file_is_reported_as_unreadable_with_exit_1() {
        Path missing = dir.resolve("nope.yml");

        Run validate = gantry("config", "validate", missing.toString());
        Run process = gantry("config", "process", missing.toString());
        Run directory = gantry("config", "validate", dir.toString());

        assertThat(validate.code()).isEqualTo(1);
        assertThat(validate.out()).isEqualTo(missing + ": error: cannot read: no such file\n");
        assertThat(process.code()).isEqualTo(1);
        assertThat(process.out()).isEqualTo(missing + ": error: cannot read: no such file\n");
        assertThat(directory.out()).isEqualTo(dir + ": error: cannot read: is a directory\n");
    }

    @Test
    void every_command_answers_help_with_exit_0_and_a_usage_text() {
        List<List<String>> paths = new ArrayList<>();
        collect(GantryCommand.commandLine(), new ArrayList<>(), paths);

        assertThat(paths).extracting(p -> String.join(" ", p))
                .contains("", "config", "config validate", "config process", "server", "agent", "up", "run", "help");
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            Run run = gantry(args.toArray(String[]::new));
            assertThat(run.code()).as("gantry %s --help", path).isZero();
            String usage = String.join(" ", List.of("Usage:", "gantry", String.join(" ", path))).strip() + " ";
            assertThat(run.out()).as("gantry %s --help", path).contains(usage);
        }
    }

    private static void collect(CommandLine command, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        command.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommandName().equals(name)) { // skip aliases
                List<String> child = new ArrayList<>(path);
                child.add(name);
                collect(sub, child, into);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "--bogus",
        "",
        "config",
        "config validate",
        "config validate --bogus FILE",
        "config process FILE --branch a --tag b",
        "config process FILE --format xml",
        "config process FILE --pipeline-number zero",
        "config process FILE --pipeline-number 0",
        "config process FILE --param novalue",
        "config process FILE --orb-dir DIR/does-not-exist",
        "server --port 70000",
        "server --port -1",
        "server --port http",
        "agent --token t",
        "agent --server http://127.0.0.1:1 --token t --cpu 0",
        "agent --server http://127.0.0.1:1 --token t --memory 0",
        "agent --server ftp://127.0.0.1:1 --token t",
        "agent --server http://127.0.0.1:1 --token t --token-file FILE",
        "agent --server http://127.0.0.1:1 --token-file DIR/no-such-token",
    })
    void usage_errors_exit_2(String line) {
        String[] args = line.isEmpty() ? new String[0]
                : line.replace("FILE", valid.toString()).replace("DIR", dir.toString()).split(" ");

        Run run = gantry(args);

        assertThat(run.code()).as(run.err()).isEqualTo(2);
        assertThat(run.err()).isNotBlank();
        assertThat(run.out()).isEmpty();
    }

    @Test
    void version_names_the_command() {
        Run run = gantry("--version");

        assertThat(run.code()).isZero();
        assertThat(run.out()).startsWith("gantry ");
    }
}
