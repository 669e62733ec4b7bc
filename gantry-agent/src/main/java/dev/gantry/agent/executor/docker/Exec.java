package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.ExecCreateCmd;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.model.Frame;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A short command run in a container to its end, its output kept (the first 64 KiB): the agent's own probes. */
final class Exec {
    private static final int KEPT = 64 * 1024;

    record Result(int exitCode, String output) {
    }

    private Exec() {
    }

    /** Runs {@code command} as {@code user} (null: the container's user) and waits for it. */
    static Result quiet(DockerClient docker, String container, String user, List<String> command)
            throws InterruptedException {
        ExecCreateCmd create = docker.execCreateCmd(container).withCmd(command.toArray(String[]::new))
                .withAttachStdout(true).withAttachStderr(true);
        if (user != null) {
            create.withUser(user);
        }
        String id = create.exec().getId();
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        docker.execStartCmd(id).exec(new ResultCallback.Adapter<Frame>() {
            @Override
            public void onNext(Frame frame) {
                byte[] payload = frame.getPayload();
                synchronized (kept) {
                    if (payload != null && kept.size() < KEPT) {
                        kept.write(payload, 0, Math.min(payload.length, KEPT - kept.size()));
                    }
                }
            }
        }).awaitCompletion();
        Long code = finished(docker, id).getExitCodeLong();
        synchronized (kept) {
            return new Result(code == null ? -1 : code.intValue(), kept.toString(StandardCharsets.UTF_8));
        }
    }

    /** Inspects the exec until the runtime says it stopped running (the stream can end a moment before). */
    static InspectExecResponse finished(DockerClient docker, String id) throws InterruptedException {
        for (int i = 0; ; i++) {
            InspectExecResponse inspected = docker.inspectExecCmd(id).exec();
            if (!Boolean.TRUE.equals(inspected.isRunning()) || i >= 200) {
                return inspected;
            }
            Thread.sleep(10);
        }
    }
}
