package dev.gantry.bench.e2e;

import dev.gantry.bench.Suite;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench e2e-containers}: the one-job no-op pipeline of {@code bench e2e}, run one at a time on warm agents,
 * first with the host shell executor and then with the docker executor (the job's image present on the runtime,
 * through {@code DOCKER_HOST}), in the same run. It reports trigger → first step started for both, and the container
 * overhead per job: the median trigger → job success on containers less the same on the host shell (pulling nothing,
 * it is creating, starting and removing the container and one exec per step). Ends with
 * {@code RESULT shell_p50_start_ms=… shell_p95_start_ms=… docker_p50_start_ms=… docker_p95_start_ms=…
 * shell_job_ms=… docker_job_ms=… container_overhead_ms=…}.
 */
public final class ContainersSuite implements Suite {
    private static final int AGENTS = 2;

    @Override
    public String name() {
        return "e2e-containers";
    }

    @Override
    public String description() {
        return "the no-op pipeline on the docker executor beside the host shell: start latency and overhead per job";
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        int warmUp = quick ? 3 : 5;
        int samples = quick ? 15 : 50;
        out.println("bench e2e-containers" + (quick ? " --quick" : "") + ": " + samples
                + " sequential no-op pipelines per executor, " + AGENTS + " agents, on "
                + Runtime.getRuntime().availableProcessors() + " processors");
        List<GantryE2e.Sample> shell;
        try (GantryRig rig = GantryRig.start(AGENTS, "shell")) {
            shell = GantryE2e.sequential(rig.client(), warmUp, samples);
        }
        List<GantryE2e.Sample> docker;
        try (GantryRig rig = GantryRig.start(AGENTS, "docker")) {
            docker = GantryE2e.sequential(rig.client(), warmUp, samples);
        }
        double shellJob = medianDone(shell);
        double dockerJob = medianDone(docker);
        out.println();
        out.printf(Locale.ROOT, "%-8s %12s %12s %16s%n", "executor", "p50 start", "p95 start", "p50 trigger→done");
        print(out, "shell", shell);
        print(out, "docker", docker);
        out.printf(Locale.ROOT, "container overhead per job (p50 trigger→done, docker − shell): %.0f ms%n",
                dockerJob - shellJob);
        out.printf(Locale.ROOT, "RESULT shell_p50_start_ms=%.0f shell_p95_start_ms=%.0f docker_p50_start_ms=%.0f "
                        + "docker_p95_start_ms=%.0f shell_job_ms=%.0f docker_job_ms=%.0f container_overhead_ms=%.0f%n",
                percentile(shell, 50), percentile(shell, 95), percentile(docker, 50), percentile(docker, 95),
                shellJob, dockerJob, dockerJob - shellJob);
        return 0;
    }

    private static void print(PrintStream out, String name, List<GantryE2e.Sample> samples) {
        out.printf(Locale.ROOT, "%-8s %9.0f ms %9.0f ms %13.0f ms%n", name, percentile(samples, 50),
                percentile(samples, 95), medianDone(samples));
    }

    private static double percentile(List<GantryE2e.Sample> samples, int p) {
        List<Double> starts = new ArrayList<>(samples.stream().map(GantryE2e.Sample::startMs).toList());
        Collections.sort(starts);
        return E2eFigures.percentile(starts, p);
    }

    private static double medianDone(List<GantryE2e.Sample> samples) {
        List<Double> values = new ArrayList<>(samples.stream().map(GantryE2e.Sample::doneMs).toList());
        Collections.sort(values);
        return E2eFigures.percentile(values, 50);
    }
}
