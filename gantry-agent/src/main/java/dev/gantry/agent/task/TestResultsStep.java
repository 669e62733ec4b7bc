package dev.gantry.agent.task;

import dev.gantry.agent.protocol.TestCase;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code store_test_results}: parses a JUnit XML file, or every {@code *.xml} under a directory, and sends the cases
 * in batches, the job's secrets masked in every text of them. A file that is not a JUnit report is skipped with a
 * note in the output; it does not fail the step.
 */
final class TestResultsStep {
    static final int BATCH = 500;

    private TestResultsStep() {
    }

    static StepResult run(StepContext ctx, Step.StoreTestResults step) throws IOException, InterruptedException {
        if (step.path() == null) {
            ctx.log().line("store_test_results needs a path");
            return StepResult.FAILED;
        }
        Path inSandbox = ctx.path(step.path());
        Optional<Path> copy = ctx.sandbox().read(inSandbox, ctx.dir().newStaging());
        if (copy.isEmpty()) {
            ctx.log().line("No test results found at " + step.path() + " (" + inSandbox + ")");
            return StepResult.SUCCESS;
        }
        Path source = copy.get();
        List<Path> files;
        if (Files.isDirectory(source)) {
            try (Stream<Path> walk = Files.walk(source)) {
                files = walk.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().endsWith(".xml"))
                        .sorted().toList();
            }
        } else {
            files = List.of(source);
        }
        List<TestCase> batch = new ArrayList<>();
        int total = 0;
        for (Path file : files) {
            List<TestCase> cases;
            try (InputStream in = Files.newInputStream(file)) {
                cases = JUnitReports.parse(in, ctx.masker());
            } catch (JUnitReports.NotAReportException e) {
                ctx.log().line("Skipped " + source.relativize(file) + ": " + e.getMessage());
                continue;
            }
            for (TestCase c : cases) {
                batch.add(c);
                if (batch.size() == BATCH) {
                    ctx.server().storeTests(ctx.task(), List.copyOf(batch));
                    batch.clear();
                }
            }
            total += cases.size();
        }
        if (!batch.isEmpty()) {
            ctx.server().storeTests(ctx.task(), batch);
        }
        ctx.log().line("Stored " + total + " test results from " + files.size() + " file" + (files.size() == 1 ? "" : "s"));
        return StepResult.SUCCESS;
    }
}
