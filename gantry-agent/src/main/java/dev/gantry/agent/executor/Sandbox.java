package dev.gantry.agent.executor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One task's place to run: where its steps' processes start and where its files live. Paths given to a sandbox are
 * paths inside it (in a container, the container's own file system); host paths are only ever the task's own
 * directory. Steps that move files (checkout, caches, workspaces, artifacts, test results) copy them between the
 * sandbox and the task's directory with {@link #read} and {@link #write}, so they work the same in every executor.
 * Used by the task's thread; {@link #close} kills every process and removes every container the task had.
 */
public interface Sandbox extends AutoCloseable {

    /** Where {@code ~} points: the home of the user the steps run as. */
    Path home();

    /**
     * The variables every process starts from, before CircleCI's and the job's: the agent host's own (less its
     * {@code GANTRY_*} ones) on the host shell, nothing extra in a container (the image's are already there).
     */
    Map<String, String> baseEnvironment();

    /** Starts {@code command} in {@code directory} (created if missing) with {@code environment} on top of the base. */
    StepProcess start(List<String> command, Path directory, Map<String, String> environment) throws IOException;

    /**
     * A path on the host whose contents are what {@code path} holds in the sandbox now, to be read (archived,
     * hashed, parsed), never written; empty when nothing is there. A copy under {@code staging} (a fresh, empty host
     * directory in the task's directory) when the sandbox is a container.
     */
    Optional<Path> read(Path path, Path staging) throws IOException, InterruptedException;

    /**
     * Puts every entry under the host directory {@code tree} into {@code directory} in the sandbox (created if
     * missing), over what is there, owned by the user the steps run as. {@code tree} may be consumed.
     */
    void write(Path tree, Path directory) throws IOException, InterruptedException;

    /**
     * Puts a read-only file holding {@code content} where the steps can read it (a custom {@code shell}'s script),
     * and returns its path in the sandbox.
     */
    Path share(String name, String content) throws IOException;

    /**
     * Gives the job a Docker Engine API of its own ({@code setup_remote_docker}), started once; returns the
     * {@code DOCKER_HOST} later steps reach it at.
     *
     * @throws SandboxException when this sandbox cannot, with the reason
     */
    String remoteDocker(Consumer<String> say) throws SandboxException, InterruptedException;

    /** True once a step asked to end the job successfully here ({@code circleci step halt}). */
    boolean halted();

    /**
     * The file {@code $BASH_ENV} names, which need not exist yet: steps append {@code export} lines to it, as orbs
     * do, and every bash step sources it first (bash reads {@code $BASH_ENV} when it starts a script).
     */
    Path bashEnv();

    /** Lines for the top of the output that say where the steps run. */
    List<String> describe();

    /** Kills every process the task started and removes its containers; never throws. */
    @Override
    void close();
}
