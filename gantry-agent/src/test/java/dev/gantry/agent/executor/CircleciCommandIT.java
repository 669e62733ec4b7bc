package dev.gantry.agent.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code circleci} script that jobs find on their {@code PATH}, copied from the agent's resources and run as a
 * real process under each shell a CI image may have: dash, bash, and busybox (skipped where {@code /bin/busybox} is
 * absent) with busybox's own awk, find and sort, as on Alpine.
 */
class CircleciCommandIT {
    private static final String RESOURCE = "/dev/gantry/agent/executor/circleci";
    private static final Path BUSYBOX = Path.of("/bin/busybox");
    /** Every command the script, and the commands these tests give {@code tests run}, need on an Alpine image. */
    private static final List<String> BUSYBOX_TOOLS = List.of("sh", "awk", "find", "sort", "wc", "cat", "mkdir",
            "test", "[", "touch", "tr", "printf", "echo");

    enum Shell { DASH, BASH, BUSYBOX }

    record Run(int exit, String out, String err) {
        List<String> lines() {
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        }
    }

    @TempDir
    Path temp;
    Path script;
    Path work;
    Path task;
    Path control;

    @BeforeEach
    void copyTheScript() throws IOException {
        script = temp.resolve("bin/circleci");
        Files.createDirectories(script.getParent());
        try (InputStream in = CircleciCommandIT.class.getResourceAsStream(RESOURCE)) {
            assertThat(in).as("resource %s", RESOURCE).isNotNull();
            Files.copy(in, script);
        }
        work = Files.createDirectories(temp.resolve("work"));
        task = Files.createDirectories(temp.resolve("task"));
        control = Files.createDirectories(temp.resolve("control"));
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void glob_expands_double_stars_braces_question_marks_and_classes(Shell shell) throws Exception {
        files("src/app.py", "src/a/b/deep.py", "src/a/util.py", "src/a/notes.txt", "lib/x.py", "tests/t1.py",
                "tests/t2.py", "tests/t10.py", "docs/a.md", "docs/b.md", "docs/c.md", "README.md");

        assertThat(run(shell, "", "tests", "glob", "src/**/*.py").lines())
                .containsExactly("src/a/b/deep.py", "src/a/util.py", "src/app.py");
        assertThat(run(shell, "", "tests", "glob", "{src,lib}/*.py", "**/*.{md,txt}").lines())
                .containsExactly("README.md", "docs/a.md", "docs/b.md", "docs/c.md", "lib/x.py", "src/a/notes.txt",
                        "src/app.py");
        assertThat(run(shell, "", "tests", "glob", "tests/t?.py", "docs/[ab].md", "docs/[!ab].md").lines())
                .containsExactly("docs/a.md", "docs/b.md", "docs/c.md", "tests/t1.py", "tests/t2.py");
        assertThat(run(shell, "", "tests", "glob", "./tests/t1*.py", "tests/*1.py").lines())
                .as("paths as the patterns write them, each once")
                .containsExactly("./tests/t1.py", "./tests/t10.py", "tests/t1.py");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void glob_prints_nothing_and_succeeds_when_no_file_matches(Shell shell) throws Exception {
        files("src/app.py");

        Run run = run(shell, "", "tests", "glob", "spec/**/*_spec.rb", "src/*.rb", "missing.txt");

        assertThat(run.exit()).isZero();
        assertThat(run.out()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void glob_matches_hidden_files_only_when_the_pattern_names_them(Shell shell) throws Exception {
        files("src/app.py", "src/.secret.py", ".git/hooks/x.py", ".circleci/config.yml", "src/.cache/c.py");

        assertThat(run(shell, "", "tests", "glob", "**/*.py", "**/*").lines())
                .containsExactly("src/app.py");
        assertThat(run(shell, "", "tests", "glob", "src/.*.py", ".circleci/*.yml", "src/.cache/*").lines())
                .containsExactly(".circleci/config.yml", "src/.cache/c.py", "src/.secret.py");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_by_name_deals_every_name_to_exactly_one_of_four_nodes(Shell shell) throws Exception {
        List<String> names = IntStream.range(0, 103).mapToObj("spec/model_%03d_spec.rb"::formatted).toList();
        List<String> shuffled = new ArrayList<>(names);
        Collections.shuffle(shuffled, new Random(7));

        List<List<String>> nodes = splitAcrossNodes(shell, 4, String.join("\n", shuffled) + "\n", "tests", "split");

        assertThat(nodes.stream().flatMap(List::stream)).containsExactlyInAnyOrderElementsOf(names);
        assertThat(nodes).allSatisfy(node -> assertThat(node).isSorted().hasSizeBetween(25, 26));
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_by_timings_balances_four_nodes_within_fifteen_percent(Shell shell) throws Exception {
        // A few very long test files, many short ones: Pareto(alpha 1.3) durations per test case.
        Random random = new Random(20_260_917L);
        Map<String, Double> fileSeconds = new TreeMap<>();
        StringBuilder timings = new StringBuilder();
        for (int f = 0; f < 240; f++) {
            String file = "tests/test_module_%03d.py".formatted(f);
            for (int c = 0, cases = 1 + random.nextInt(4); c < cases; c++) {
                double seconds = Math.round(50 / Math.pow(1 - random.nextDouble(), 1 / 1.3)) / 1000.0;
                fileSeconds.merge(file, seconds, Double::sum);
                timings.append(String.format(Locale.ROOT, "./%s\ttests.test_module_%03d.Suite\ttest_%d\t%.3f%n",
                        file, f, c, seconds));
            }
        }
        Files.writeString(task.resolve("timings.tsv"), timings);
        double share = fileSeconds.values().stream().mapToDouble(Double::doubleValue).sum() / 4;
        List<String> names = List.copyOf(fileSeconds.keySet());
        assertThat(fileSeconds.values()).as("the longest file fits in one node's share").allMatch(s -> s < share);
        assertThat(loads(IntStream.range(0, 4).mapToObj(node -> IntStream.range(0, names.size())
                .filter(i -> i % 4 == node).mapToObj(names::get).toList()).toList(), fileSeconds))
                .as("skewed enough that dealing the files by name misses the bound")
                .anyMatch(load -> load > 1.15 * share);

        List<List<String>> nodes = splitAcrossNodes(shell, 4, String.join("\n", names) + "\n",
                "tests", "split", "--split-by=timings");

        assertThat(nodes.stream().flatMap(List::stream)).containsExactlyInAnyOrderElementsOf(names);
        assertThat(loads(nodes, fileSeconds)).as("node totals, each node's share being %.1fs", share)
                .allSatisfy(load -> assertThat(load).isLessThanOrEqualTo(1.15 * share));
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_by_classname_timings_weighs_each_class_by_its_test_cases(Shell shell) throws Exception {
        Files.writeString(task.resolve("timings.tsv"), """
                \tcom.acme.A\tslow\t10
                \tcom.acme.B\tone\t6
                \tcom.acme.C\tone\t2
                \tcom.acme.C\ttwo\t2
                \tcom.acme.D\tone\t1
                """);
        String names = "com.acme.D\ncom.acme.C\ncom.acme.B\ncom.acme.A\n";

        // Heaviest first, each to the lighter node: A(10) and B(6) apart, C(4) joins B, D(1) takes the tie's node 0.
        assertThat(splitAcrossNodes(shell, 2, names, "tests", "split", "--split-by=timings",
                "--timings-type=classname"))
                .containsExactly(List.of("com.acme.A", "com.acme.D"), List.of("com.acme.B", "com.acme.C"));
        assertThat(splitAcrossNodes(shell, 2, names, "tests", "split", "--split-by=timings"))
                .as("autodetected: no stored line has a file")
                .containsExactly(List.of("com.acme.A", "com.acme.D"), List.of("com.acme.B", "com.acme.C"));
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_gives_names_without_timings_the_mean_of_the_known_ones(Shell shell) throws Exception {
        Files.writeString(task.resolve("timings.tsv"), """
                a_test.go\t\tTestA\t10
                b_test.go\t\tTestB\t10
                c_test.go\t\tTestC\t4
                """);

        // new_test.go weighs 8, the mean: a(10) b(10) new(8) c(4). Weighing it less would put c beside a.
        assertThat(splitAcrossNodes(shell, 2, "a_test.go\nb_test.go\nc_test.go\nnew_test.go\n",
                "tests", "split", "--split-by=timings"))
                .containsExactly(List.of("a_test.go", "new_test.go"), List.of("b_test.go", "c_test.go"));
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_by_timings_spreads_tests_that_took_no_time_evenly(Shell shell) throws Exception {
        List<String> names = IntStream.range(0, 10).mapToObj("test_%d.py"::formatted).toList();
        Files.writeString(task.resolve("timings.tsv"), names.stream()
                .map(name -> name + "\tSuite\ttest\t0.000\n").reduce("", String::concat));

        List<List<String>> nodes = splitAcrossNodes(shell, 4, String.join("\n", names) + "\n",
                "tests", "split", "--split-by=timings");

        assertThat(nodes).extracting(List::size).containsExactly(3, 3, 2, 2);
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_by_timings_falls_back_to_names_with_a_note_when_no_timings_are_stored(Shell shell)
            throws Exception {
        String names = "d.py\nc.py\nb.py\na.py\ne.py\n";

        Run missing = run(shell, names, Map.of("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "2"),
                "tests", "split", "--split-by=timings");
        Files.writeString(task.resolve("timings.tsv"), "");
        Run empty = run(shell, names, Map.of("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "2"),
                "tests", "split", "--split-by=timings");

        assertThat(List.of(missing, empty)).allSatisfy(run -> {
            assertThat(run.exit()).isZero();
            assertThat(run.lines()).containsExactly("a.py", "c.py", "e.py");
            assertThat(run.err().lines().filter(line -> line.contains("falling back to splitting by name")))
                    .hasSize(1);
        });
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void split_by_filesize_weighs_files_by_their_bytes(Shell shell) throws Exception {
        Files.write(work.resolve("big.rb"), new byte[1000]);
        Files.write(work.resolve("mid1.rb"), new byte[600]);
        Files.write(work.resolve("mid2.rb"), new byte[500]);
        Files.write(work.resolve("small.rb"), new byte[100]);

        // big apart from mid1; mid2 joins mid1 (600 < 1000); small goes to the lighter node, big's.
        assertThat(splitAcrossNodes(shell, 2, "small.rb\nmid2.rb\nmid1.rb\nbig.rb\n",
                "tests", "split", "--split-by=filesize"))
                .containsExactly(List.of("big.rb", "small.rb"), List.of("mid1.rb", "mid2.rb"));
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void node_flags_override_the_node_variables(Shell shell) throws Exception {
        Run run = run(shell, "a\nb\nc\nd\n", Map.of("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "4"),
                "tests", "split", "--index", "1", "--total=2");

        assertThat(run.lines()).containsExactly("b", "d");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void tests_run_pipes_this_nodes_names_to_the_command_and_returns_its_exit_code(Shell shell) throws Exception {
        String names = "spec/c_spec.rb\nspec/a_spec.rb\nspec/b_spec.rb\n";
        Map<String, String> node = Map.of("CIRCLE_NODE_INDEX", "1", "CIRCLE_NODE_TOTAL", "2");

        Run run = run(shell, names, node, "tests", "run", "--command=cat > got.txt; exit 3", "--verbose");

        assertThat(run.exit()).isEqualTo(3);
        assertThat(Files.readString(work.resolve("got.txt"))).isEqualTo("spec/b_spec.rb\n");
        assertThat(run(shell, names, node, "tests", "split").out()).isEqualTo("spec/b_spec.rb\n");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void env_subst_replaces_variables_in_stdin_or_its_argument_as_the_path_filtering_orb_uses_it(Shell shell)
            throws Exception {
        Map<String, String> env = Map.of("BASE", "main", "EMPTY", "");

        Run piped = run(shell, "src/.* build $BASE\n${BASE}-x ${MISSING} ${MISSING-d1} ${EMPTY:-d2} ${EMPTY-d3}\n"
                + "$$BASE costs $5 and ${weird:x}\n", env, "env", "subst");
        Run argument = run(shell, "", env, "env", "subst", "$BASE/out");

        assertThat(piped.exit()).isZero();
        assertThat(piped.out()).isEqualTo("src/.* build main\nmain-x  d1 d2 \n$BASE costs $5 and ${weird:x}\n");
        assertThat(argument.out()).isEqualTo("main/out\n");
        assertThat(run(shell, "", env, "env", "subst", "a", "b").exit()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void tests_run_runs_nothing_on_a_node_that_gets_no_names(Shell shell) throws Exception {
        Run run = run(shell, "only_test.py\n", Map.of("CIRCLE_NODE_INDEX", "3", "CIRCLE_NODE_TOTAL", "4"),
                "tests", "run", "--command", "touch ran; exit 1");

        assertThat(run.exit()).isZero();
        assertThat(work.resolve("ran")).doesNotExist();
        assertThat(run.err()).contains("not running the command");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void step_halt_creates_the_halt_file_and_succeeds(Shell shell) throws Exception {
        Run run = run(shell, "", "step", "halt");

        assertThat(run.exit()).isZero();
        assertThat(control.resolve("halt")).exists();
        assertThat(run.out()).contains("halting");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void an_unknown_flag_or_command_exits_non_zero_with_a_message_naming_it(Shell shell) throws Exception {
        Run flag = run(shell, "a\n", "tests", "split", "--split-by=timings", "--bogus");
        Run command = run(shell, "", "tests", "shard");
        Run splitBy = run(shell, "a\n", "tests", "split", "--split-by=size");

        assertThat(List.of(flag, command, splitBy)).allSatisfy(run -> {
            assertThat(run.exit()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
        });
        assertThat(flag.err().lines().findFirst()).hasValue("circleci: unknown flag: --bogus");
        assertThat(command.err()).startsWith("circleci: unknown command \"shard\"");
        assertThat(splitBy.err()).startsWith("circleci: --split-by must be");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void workstation_commands_are_refused_and_every_command_has_help(Shell shell) throws Exception {
        Run config = run(shell, "", "config", "validate");

        assertThat(config.exit()).isEqualTo(1);
        assertThat(config.err()).contains("not available inside a Gantry job");
        for (List<String> help : List.of(List.of("--help"), List.of("tests", "--help"),
                List.of("tests", "split", "--help"), List.of("tests", "run", "-h"), List.of("step", "--help"))) {
            Run run = run(shell, "", help.toArray(String[]::new));
            assertThat(run.exit()).as("%s", help).isZero();
            assertThat(run.out()).as("%s", help).contains("Usage:");
        }
    }

    /** The script's output on each of {@code total} nodes, index by index. */
    private List<List<String>> splitAcrossNodes(Shell shell, int total, String stdin, String... args)
            throws Exception {
        List<List<String>> nodes = new ArrayList<>();
        for (int index = 0; index < total; index++) {
            Run run = run(shell, stdin, Map.of("CIRCLE_NODE_INDEX", Integer.toString(index),
                    "CIRCLE_NODE_TOTAL", Integer.toString(total)), args);
            assertThat(run.exit()).as("node %d: %s", index, run.err()).isZero();
            nodes.add(run.lines());
        }
        return nodes;
    }

    private static List<Double> loads(List<List<String>> nodes, Map<String, Double> seconds) {
        return nodes.stream().map(node -> node.stream().mapToDouble(seconds::get).sum()).toList();
    }

    private void files(String... paths) throws IOException {
        for (String path : paths) {
            Files.createDirectories(work.resolve(path).getParent());
            Files.writeString(work.resolve(path), path + "\n");
        }
    }

    private Run run(Shell shell, String stdin, String... args) throws Exception {
        return run(shell, stdin, Map.of(), args);
    }

    private Run run(Shell shell, String stdin, Map<String, String> variables, String... args) throws Exception {
        List<String> command = new ArrayList<>(switch (shell) {
            case DASH -> List.of("dash");
            case BASH -> List.of("bash");
            case BUSYBOX -> List.of(BUSYBOX.toString(), "sh");
        });
        command.add(script.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(temp.resolve("stdout").toFile()).redirectError(temp.resolve("stderr").toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("CIRCLE"));
        env.put("CIRCLE_INTERNAL_TASK_DATA", task.toString());
        env.put("CIRCLE_INTERNAL_CONTROL_DIR", control.toString());
        env.put("LC_ALL", "C.UTF-8");
        if (shell == Shell.BUSYBOX) {
            env.put("PATH", busyboxTools().toString());
        }
        env.putAll(variables);
        Process process = builder.start();
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("finished within a minute: %s", command).isTrue();
        return new Run(process.exitValue(), Files.readString(temp.resolve("stdout")),
                Files.readString(temp.resolve("stderr")));
    }

    /**
     * A directory of busybox applets as the only PATH, so that its awk, find and sort are the ones used. Small
     * scripts rather than links: JUnit warns about every link in a temporary directory that points out of it.
     */
    private Path busyboxTools() throws IOException {
        assumeTrue(Files.isExecutable(BUSYBOX), "no /bin/busybox on this machine");
        Path tools = temp.resolve("busybox-tools");
        if (!Files.isDirectory(tools)) {
            Files.createDirectories(tools);
            for (String tool : BUSYBOX_TOOLS) {
                Path applet = tools.resolve(tool);
                Files.writeString(applet, "#!%s sh\nexec %s %s \"$@\"\n".formatted(BUSYBOX, BUSYBOX, tool));
                applet.toFile().setExecutable(true);
            }
        }
        return tools;
    }
}
