package dev.gantry.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchMainTest {

    @Test
    void an_unknown_name_lists_the_known_benchmarks_and_exits_2() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        BenchMain main = new BenchMain(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int code = new CommandLine(main).execute("nope");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("unknown benchmark 'nope'").contains("  config ");
    }

    @Test
    void help_names_the_known_benchmarks() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new BenchMain(System.out, System.err));
        cli.setOut(new PrintWriter(out, true));

        int code = cli.execute("--help");

        assertThat(code).isZero();
        assertThat(out.toString()).contains("Usage: gantry bench", "--quick", "config", "queue", "scheduler");
    }

    @Test
    void queue_and_quick_parse_into_the_queue_suite_and_a_quick_run() {
        BenchMain main = new BenchMain(System.out, System.err);

        new CommandLine(main).parseArgs("queue", "--quick");

        assertThat(main.name).isEqualTo("queue");
        assertThat(main.quick).isTrue();
        assertThat(BenchMain.SUITES).containsKeys("config", "queue", "e2e", "scheduler", "ui", "notify");
        assertThat(BenchMain.SUITES.get("queue").name()).isEqualTo("queue");
    }

    @Test
    void chaos_takes_a_seed() {
        BenchMain main = new BenchMain(System.out, System.err);

        new CommandLine(main).parseArgs("chaos", "--quick", "--seed", "42");

        assertThat(main.name).isEqualTo("chaos");
        assertThat(main.seed).isEqualTo(42L);
        assertThat(BenchMain.SUITES).containsKey("chaos");
    }

    @Test
    void a_missing_name_is_a_usage_error() {
        CommandLine cli = new CommandLine(new BenchMain(System.out, System.err));
        cli.setErr(new PrintWriter(new StringWriter(), true));

        assertThat(cli.execute()).isEqualTo(2);
    }
}
