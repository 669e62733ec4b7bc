package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.model.Frame;
import dev.gantry.agent.executor.StepProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A step's command executed in the primary container. The exec starts in the step's directory (made first, as the
 * step's user) and carries a marker in its environment, so that killing it finds every process it started, even
 * ones that left its tree, by reading {@code /proc/*}{@code /environ} inside the container, as the host shell
 * executor does on the host. Its stderr goes to its stdout inside the container, so that lines keep the order they
 * were written in (two streams would interleave torn lines); the frames arrive on docker-java's thread and are read
 * through {@link #output} by the step's pump.
 */
final class ExecProcess implements StepProcess {
    private static final String MARKER = "CIRCLE_INTERNAL_STEP";
    /** While the output is still open, ask the runtime whether the process exited no more often than this. */
    private static final Duration INSPECT_EVERY = Duration.ofMillis(500);
    private static final String KILL_MARKED = "for d in /proc/[0-9]*; do "
            + "if tr '\\0' '\\n' < \"$d/environ\" 2>/dev/null | grep -qxF \"$2\"; then kill -\"$1\" \"${d#/proc/}\" 2>/dev/null; fi; "
            + "done; exit 0";

    private final DockerClient docker;
    private final String container;
    private final String id;
    private final String marker;
    private final Chunks output = new Chunks();
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile Integer exitCode;
    private long lastInspect;

    private ExecProcess(DockerClient docker, String container, String id, String marker) {
        this.docker = docker;
        this.container = container;
        this.id = id;
        this.marker = marker;
    }

    static ExecProcess start(DockerClient docker, String container, Path directory, Map<String, String> environment,
                             List<String> command) throws IOException {
        String marker = MARKER + "=" + UUID.randomUUID();
        List<String> env = new ArrayList<>();
        environment.forEach((name, value) -> {
            if (!name.equals(MARKER)) {
                env.add(name + "=" + value);
            }
        });
        env.add(marker);
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c",
                "mkdir -p -- \"$0\" && cd -- \"$0\" && exec \"$@\" 2>&1", directory.toString()));
        argv.addAll(command);
        try {
            String id = docker.execCreateCmd(container).withCmd(argv.toArray(String[]::new)).withEnv(env)
                    .withAttachStdout(true).withAttachStderr(true).exec().getId();
            ExecProcess process = new ExecProcess(docker, container, id, marker);
            docker.execStartCmd(id).exec(process.new Pump());
            return process;
        } catch (DockerException e) {
            throw new IOException("cannot run the step in the container: " + ContainerSandbox.message(e), e);
        }
    }

    @Override
    public InputStream output() {
        return output;
    }

    @Override
    public boolean waitFor(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (exitCode == null) {
            long left = deadline - System.nanoTime();
            // the output ends when the process exits, unless something it left behind still holds it open
            if (ended.await(Math.max(0, Math.min(left, INSPECT_EVERY.toNanos())), TimeUnit.NANOSECONDS)) {
                exitCode = code(Exec.finished(docker, id));
            } else if (System.nanoTime() - lastInspect >= INSPECT_EVERY.toNanos()) {
                lastInspect = System.nanoTime();
                InspectExecResponse inspected = docker.inspectExecCmd(id).exec();
                if (!Boolean.TRUE.equals(inspected.isRunning())) {
                    exitCode = code(inspected);
                }
            }
            if (exitCode == null && System.nanoTime() >= deadline) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Integer exitCode() {
        return exitCode;
    }

    @Override
    public void kill(Duration grace) throws InterruptedException {
        signal("TERM");
        if (!waitFor(grace)) {
            signal("KILL");
            waitFor(Duration.ofSeconds(5));
        }
        output.end(); // whatever still holds the output is no longer this step's
    }

    private void signal(String signal) throws InterruptedException {
        try {
            Exec.quiet(docker, container, "0", List.of("/bin/sh", "-c", KILL_MARKED, "sh", signal, marker));
        } catch (DockerException e) {
            // the container is gone: so is the process
        }
    }

    private static int code(InspectExecResponse inspected) {
        Long code = inspected.getExitCodeLong();
        return code == null ? -1 : code.intValue();
    }

    /** Frames from docker-java's thread into {@link #output}. */
    private final class Pump extends ResultCallback.Adapter<Frame> {
        @Override
        public void onNext(Frame frame) {
            if (frame.getPayload() != null && frame.getPayload().length > 0) {
                // docker-java reads the next frame into the same array once this returns: keep a copy
                output.add(frame.getPayload().clone());
            }
        }

        @Override
        public void onError(Throwable error) {
            output.end();
            ended.countDown();
        }

        @Override
        public void onComplete() {
            output.end();
            ended.countDown();
        }
    }

    /** An input stream of the chunks handed to it, ending when {@link #end} is called. Thread-safe. */
    private static final class Chunks extends InputStream {
        private static final byte[] END = new byte[0];
        private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
        private byte[] current;
        private int at;
        private boolean ended;

        void add(byte[] chunk) {
            queue.add(chunk);
        }

        void end() {
            queue.add(END);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            while (current == null || at == current.length) {
                if (ended) {
                    return -1;
                }
                try {
                    current = queue.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while reading a step's output", e);
                }
                at = 0;
                if (current == END) {
                    ended = true;
                    return -1;
                }
            }
            int n = Math.min(length, current.length - at);
            System.arraycopy(current, at, buffer, offset, n);
            at += n;
            return n;
        }
    }
}
