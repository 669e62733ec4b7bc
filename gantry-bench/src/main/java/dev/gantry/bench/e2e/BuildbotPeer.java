package dev.gantry.bench.e2e;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Buildbot side of {@code bench e2e}: runs {@code bench/buildbot/buildbot_peer.py} (a Python driver, standard
 * library only, next to the {@code master.cfg} it uses) with {@code python3} and returns its figures.
 *
 * <p>The driver installs Buildbot with apt-get when its commands are missing, sets up a master (sqlite) and four
 * workers on loopback in a temp dir, measures trigger→first-step-started latency on sequential builds and throughput
 * on a saturated builder, prints one JSON line and stops every process it started, also on failure or SIGTERM. The
 * scripts live in the jar, so they are copied to a temp dir first.
 *
 * <p>Try it alone: {@code java -cp gantry-bench/target/gantry-bench.jar dev.gantry.bench.e2e.BuildbotPeer --quick}.
 */
public final class BuildbotPeer {
    private static final String RESOURCES = "/bench/buildbot/";
    private static final List<String> SCRIPTS = List.of("buildbot_peer.py", "master.cfg");
    private static final int STDERR_TAIL_LINES = 40;

    private BuildbotPeer() {
    }

    /** Runs the peer, forwarding its progress (standard error) to {@code System.err}. */
    public static BuildbotFigures run(boolean quick) throws IOException, InterruptedException {
        return run(quick, E2eSuite.saturatedWarmUp(quick), System.err);
    }

    /**
     * Runs the peer: about 1 minute quick, 2–3 minutes full, plus an apt-get install on a clean machine.
     *
     * @param quick    15 latency builds and a 20 s throughput window instead of 50 and 60 s
     * @param warmUp   how long builds run saturated before the throughput window opens
     * @param progress where the driver's progress lines go, as they come
     * @throws IOException when python3 is missing, or the driver fails or times out; the message ends with the tail
     *                     of the driver's standard error
     */
    public static BuildbotFigures run(boolean quick, Duration warmUp, PrintStream progress)
            throws IOException, InterruptedException {
        String python = findOnPath("python3");
        if (python == null) {
            throw new IOException("bench e2e needs python3 for its Buildbot peer; install it (apt-get install -y "
                    + "python3) or put it on PATH");
        }
        // Generous: the run itself takes minutes at most, but a clean machine first installs Buildbot.
        Duration timeout = Duration.ofMinutes(quick ? 10 : 20);
        Path dir = Files.createTempDirectory("gantry-bench-buildbot-driver-");
        try {
            for (String name : SCRIPTS) {
                try (InputStream in = BuildbotPeer.class.getResourceAsStream(RESOURCES + name)) {
                    if (in == null) {
                        throw new IOException("resource " + RESOURCES + name + " is missing from the class path");
                    }
                    Files.copy(in, dir.resolve(name));
                }
            }
            List<String> command = new ArrayList<>(List.of(python, dir.resolve("buildbot_peer.py").toString()));
            if (quick) {
                command.add("--quick");
            }
            command.addAll(List.of("--warmup", Long.toString(warmUp.toSeconds())));
            return runDriver(command, dir, timeout, progress);
        } finally {
            deleteTree(dir);
        }
    }

    private static BuildbotFigures runDriver(List<String> command, Path dir, Duration timeout, PrintStream progress)
            throws IOException, InterruptedException {
        Process driver = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        driver.getOutputStream().close();
        // If this JVM is stopped (SIGTERM, Ctrl-C), SIGTERM the driver and give it time to stop Buildbot; the JVM
        // halts after its hooks, before the finally blocks of the thread running this, so clean up here too.
        Thread stopDriver = new Thread(() -> {
            stop(driver);
            deleteTree(dir);
        }, "buildbot-peer-stop");
        Runtime.getRuntime().addShutdownHook(stopDriver);
        Deque<String> tail = new ArrayDeque<>();
        StringBuilder stdout = new StringBuilder();
        Thread errPump = pump(driver.getErrorStream(), line -> {
            progress.println(line);
            synchronized (tail) {
                tail.addLast(line);
                if (tail.size() > STDERR_TAIL_LINES) {
                    tail.removeFirst();
                }
            }
        });
        Thread outPump = pump(driver.getInputStream(), line -> stdout.append(line).append('\n'));
        try {
            if (!driver.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                stop(driver);
                throw failure("the Buildbot peer did not finish within " + timeout.toMinutes() + " minutes",
                        tail, errPump, outPump);
            }
            errPump.join(5_000);
            outPump.join(5_000);
            if (driver.exitValue() != 0) {
                throw failure("the Buildbot peer failed (exit " + driver.exitValue() + ")", tail, errPump,
                        outPump);
            }
            String json = stdout.toString().lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
                    .orElseThrow(() -> failure("the Buildbot peer printed no JSON result; its output: "
                            + stdout.toString().strip(), tail, errPump, outPump));
            return BuildbotFigures.parse(json);
        } finally {
            if (driver.isAlive()) {
                stop(driver); // e.g. interrupted while waiting
            }
            try {
                Runtime.getRuntime().removeShutdownHook(stopDriver);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to: it stops the driver
            }
        }
    }

    /**
     * SIGTERM, so the driver stops its master and workers itself; SIGKILL after 30 s (its children then get SIGKILL
     * from the kernel: the driver sets PR_SET_PDEATHSIG on them). Through the ProcessHandle, because
     * Process.destroy() also closes the pipes, and the driver, still cleaning up, would then die of a broken pipe.
     */
    private static void stop(Process driver) {
        driver.toHandle().destroy();
        try {
            if (!driver.waitFor(30, TimeUnit.SECONDS)) {
                driver.toHandle().destroyForcibly();
            }
        } catch (InterruptedException e) {
            driver.toHandle().destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static IOException failure(String what, Deque<String> tail, Thread... pumps) {
        for (Thread pump : pumps) {
            try {
                pump.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (tail) {
            return new IOException(what + "; last lines of its standard error:\n  " + String.join("\n  ", tail));
        }
    }

    private static Thread pump(InputStream in, java.util.function.Consumer<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // the driver went away; its exit status tells the rest
            }
        }, "buildbot-peer-pipe");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String entry : path.split(File.pathSeparator)) {
            Path candidate = Path.of(entry.isEmpty() ? "." : entry, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // a leftover temp dir of two small files is not worth failing the benchmark for
        }
    }

    /** {@code BuildbotPeer [--quick]}: runs the peer alone and prints its figures. */
    public static void main(String[] args) throws Exception {
        boolean quick = List.of(args).contains("--quick");
        BuildbotFigures f = run(quick);
        System.out.printf(Locale.ROOT, "Buildbot %s, %d workers%n", f.buildbotVersion(), f.workers());
        System.out.printf(Locale.ROOT, "trigger->first step started: p50 %.1f ms, p95 %.1f ms, max %.1f ms "
                + "(n=%d; master clock: p50 %.1f ms, p95 %.1f ms)%n", f.p50StartMs(), f.p95StartMs(),
                f.maxStartMs(), f.latencyN(), f.p50StartMsMaster(), f.p95StartMsMaster());
        System.out.printf(Locale.ROOT, "throughput: %.1f builds/min (%d builds in %d s; at least %d pending; CPU, "
                + "%% of one core: master %d, workers %d; %.0f ms CPU per build)%n", f.buildsPerMin(), f.builds(),
                f.windowS(), f.minPending(), f.masterCpuPct(), f.workersCpuPct(), f.cpuMsPerBuild());
        System.out.println("method: " + f.method());
    }
}
