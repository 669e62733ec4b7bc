package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import dev.gantry.agent.executor.InCircleci;
import dev.gantry.agent.executor.Sandbox;
import dev.gantry.agent.executor.SandboxException;
import dev.gantry.agent.executor.SandboxRequest;
import dev.gantry.agent.executor.StepProcess;
import dev.gantry.agent.executor.Tars;
import dev.gantry.agent.executor.Trees;
import dev.gantry.config.plan.Executor.Docker;
import dev.gantry.config.plan.Executor.DockerImage;
import dev.gantry.config.plan.Executor.Machine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's containers: the primary, where steps run as {@code docker exec}s, and its services in the primary's
 * network namespace. The task's directory on the host reaches the primary only through four mounts under
 * {@code /.gantry}: {@code bin} (the {@code circleci} command, read-only), {@code task} (data the agent fetched for
 * the job, such as test timings, read-only), {@code transfer} (archives on their way in, read-only) and
 * {@code control} (where {@code circleci step halt} leaves its mark). Nothing of the agent's own (its token, its
 * settings, the server's files) is mounted or passed in.
 *
 * <p>Files go out through the API's archive endpoint (read as root, whatever the user) and come in as a tar that the
 * step's user extracts with the image's own {@code tar}, so restored files belong to that user, as CircleCI's
 * in-container agent leaves them. Used by the task's thread; {@link #close} removes every container.
 */
final class ContainerSandbox implements Sandbox {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerSandbox.class);
    static final String MOUNTS = "/.gantry";
    static final String BIN = MOUNTS + "/bin";
    /** What a {@code machine} job without an image runs in: the stand-in {@code bin/containers} builds. */
    static final String DEFAULT_MACHINE_IMAGE = "ubuntu-2204:current";
    /** Keeps the primary alive when the job gives it no command: CircleCI ignores its entrypoint then, too. */
    private static final List<String> KEEP_ALIVE = List.of("/bin/sh", "-c",
            "trap 'exit 0' TERM INT; while :; do sleep 86400 & wait $!; done");

    private final DockerClient docker;
    private final Task task;
    private final String primary;
    /** The service containers and the job's own Docker engine, if any: removed before the primary, whose network they use. */
    private final List<String> sidecars;
    private final Mounts mounts;
    private final Path home;
    private final List<String> notes;
    private String remoteDocker;

    /** What one task's containers share. */
    private record Task(SandboxRequest request, Map<String, String> labels, ImagePuller puller, boolean machine,
                        Engine engine) {
    }

    private ContainerSandbox(DockerClient docker, Task task, String primary, List<String> sidecars, Mounts mounts,
                             Path home, List<String> notes, String remoteDocker) {
        this.docker = docker;
        this.task = task;
        this.primary = primary;
        this.sidecars = sidecars;
        this.mounts = mounts;
        this.home = home;
        this.notes = notes;
        this.remoteDocker = remoteDocker;
    }

    /** Pulls what is missing, creates and starts the containers; removes what it made if any of it fails. */
    static ContainerSandbox open(DockerClient docker, Engine engine, EcrLogin ecr, SandboxRequest request,
                                 Map<String, String> labels, Consumer<String> say)
            throws SandboxException, InterruptedException {
        boolean machine = request.executor() instanceof Machine;
        Docker executor = machine ? new Docker(List.of(plainImage(machineImage((Machine) request.executor()))))
                : request.docker();
        if (executor == null) {
            throw new SandboxException("this agent runs docker and machine jobs only; the job asks for a "
                    + (request.executor() == null ? "job without an executor" : request.executor().kind()
                    + " executor"));
        }
        List<String> made = new ArrayList<>();
        try {
            Mounts mounts = Mounts.create(request.taskRoot());
            List<String> notes = new ArrayList<>();
            Task task = new Task(request, labels, new ImagePuller(docker, ecr, request.variables(), say), machine,
                    engine);
            DockerImage first = executor.images().get(0);
            InspectImageResponse primaryImage = task.puller().ensure(first);
            String primary = create(docker, primaryContainer(docker, task, first, primaryImage, mounts, executor),
                    made, notes);
            docker.startContainerCmd(primary).exec();
            List<String> sidecars = new ArrayList<>();
            for (DockerImage image : executor.images().subList(1, executor.images().size())) {
                task.puller().ensure(image);
                String service = create(docker, serviceContainer(docker, request, image, primary, labels), made,
                        notes);
                docker.startContainerCmd(service).exec();
                sidecars.add(service);
                say.accept("Started service container " + image.image()
                        + (image.name() == null ? "" : " as " + image.name()) + ", reached on localhost");
            }
            String remoteDocker = null;
            if (machine) {
                remoteDocker = RemoteDocker.start(docker, engine, task.puller(), primary, request.name(), labels,
                        request.memoryMb(), made);
                sidecars.add(remoteDocker);
            }
            String declared = first.user() == null ? imageVariable(primaryImage, "HOME") : null;
            Path home = declared != null ? Path.of(declared) : probeHome(docker, primary);
            return new ContainerSandbox(docker, task, primary, sidecars, mounts, home, notes, remoteDocker);
        } catch (DockerException | UncheckedIOException e) {
            made.forEach(id -> remove(docker, id));
            throw new SandboxException("cannot start the job's containers: " + message(e), e);
        } catch (IOException e) {
            made.forEach(id -> remove(docker, id));
            throw new SandboxException("cannot prepare the job's containers: " + e.getMessage(), e);
        } catch (SandboxException | InterruptedException | RuntimeException e) {
            made.forEach(id -> remove(docker, id));
            throw e;
        }
    }

    /** The container image that stands for a machine image: the one named, else {@link #DEFAULT_MACHINE_IMAGE}. */
    /** An image with nothing but its reference, as the executor's own images are. */
    static DockerImage plainImage(String image) {
        return new DockerImage(image, null, null, null, null, Map.of(), null, null);
    }

    static String machineImage(Machine machine) {
        return machine.image() == null || machine.image().isBlank() ? DEFAULT_MACHINE_IMAGE : machine.image();
    }

    private static CreateContainerCmd primaryContainer(DockerClient docker, Task task, DockerImage image,
                                                       InspectImageResponse inspected, Mounts mounts,
                                                       Docker executor) {
        SandboxRequest request = task.request();
        List<String> env = new ArrayList<>();
        String path = imageVariable(inspected, "PATH");
        env.add((path == null ? "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : "PATH=" + path)
                + ":" + BIN); // the image's own tools come first
        if (task.machine()) {
            env.add("DOCKER_HOST=" + RemoteDocker.DOCKER_HOST);
        }
        image.environment().forEach((k, v) -> env.add(k + "=" + v));
        List<String> hosts = new ArrayList<>();
        for (DockerImage service : executor.images().subList(1, executor.images().size())) {
            if (service.name() != null) {
                hosts.add(service.name() + ":127.0.0.1");
            }
        }
        hosts.addAll(task.engine().hostNames());
        HostConfig host = HostConfig.newHostConfig().withInit(true).withBinds(mounts.binds())
                .withExtraHosts(hosts.toArray(String[]::new));
        if (request.cpu() > 0) {
            host.withNanoCPUs(request.cpu() * 1_000_000_000L);
        }
        if (request.memoryMb() > 0) {
            host.withMemory(request.memoryMb() * 1024L * 1024L);
        }
        CreateContainerCmd create = docker.createContainerCmd(image.image()).withName(request.name())
                .withLabels(task.labels()).withEnv(env).withHostConfig(host);
        if (image.user() != null) {
            create.withUser(image.user());
        }
        if (image.command() != null) {
            // the job gave the primary a command: it runs with the job's (or the image's) entrypoint and must last
            create.withCmd(image.command());
            if (image.entrypoint() != null) {
                create.withEntrypoint(image.entrypoint());
            }
        } else {
            create.withEntrypoint(KEEP_ALIVE).withCmd(List.of());
        }
        return create;
    }

    private static CreateContainerCmd serviceContainer(DockerClient docker, SandboxRequest request,
                                                       DockerImage image, String primary,
                                                       Map<String, String> labels) {
        List<String> env = new ArrayList<>();
        image.environment().forEach((k, v) -> env.add(k + "=" + v));
        HostConfig host = HostConfig.newHostConfig().withNetworkMode("container:" + primary).withInit(true);
        CreateContainerCmd create = docker.createContainerCmd(image.image())
                .withName(request.name() + "-" + UUID.randomUUID().toString().substring(0, 8))
                .withLabels(labels).withEnv(env).withHostConfig(host);
        if (image.user() != null) {
            create.withUser(image.user());
        }
        if (image.entrypoint() != null) {
            create.withEntrypoint(image.entrypoint());
        }
        if (image.command() != null) {
            create.withCmd(image.command());
        }
        return create;
    }

    /**
     * Creates a container, noting it for removal. A runtime that cannot set CPU or memory limits (no cgroup
     * controller, rootless on cgroup v1) gets the container without them, and the output says so.
     */
    private static String create(DockerClient docker, CreateContainerCmd cmd, List<String> made, List<String> notes) {
        CreateContainerResponse created;
        try {
            created = cmd.exec();
        } catch (DockerException e) {
            HostConfig host = cmd.getHostConfig();
            boolean limited = host != null && (host.getNanoCPUs() != null || host.getMemory() != null);
            if (!limited || !message(e).matches("(?is).*(cgroup|limit|memory|cpu).*")) {
                throw e;
            }
            host.withNanoCPUs(null).withMemory(null);
            notes.add("The container runtime cannot limit CPU and memory here (" + message(e)
                    + "); the job's containers run without limits.");
            created = cmd.exec();
        }
        made.add(created.getId());
        if (created.getWarnings() != null) {
            for (String warning : created.getWarnings()) {
                notes.add("The container runtime says: " + warning);
            }
        }
        return created.getId();
    }

    /** A variable the image's configuration sets, or null. */
    private static String imageVariable(InspectImageResponse image, String name) {
        if (image.getConfig() == null || image.getConfig().getEnv() == null) {
            return null;
        }
        for (String variable : image.getConfig().getEnv()) {
            if (variable.startsWith(name + "=")) {
                return variable.substring(name.length() + 1);
            }
        }
        return null;
    }

    /**
     * Where {@code ~} is for the step's user when the image does not declare {@code HOME} for its own user (or the job
     * names another user): {@code $HOME} as an exec sees it, from the container's passwd, else {@code /}.
     */
    private static Path probeHome(DockerClient docker, String primary) throws SandboxException, InterruptedException {
        Exec.Result result = Exec.quiet(docker, primary, null, List.of("/bin/sh", "-c", "printf '%s' \"$HOME\""));
        if (result.exitCode() != 0) {
            throw new SandboxException("the primary image cannot run /bin/sh, which steps need: "
                    + result.output().strip());
        }
        String found = result.output().strip();
        return Path.of(found.isEmpty() ? "/" : found);
    }

    @Override
    public Path home() {
        return home;
    }

    /** In the primary's /tmp, where any user may write, as CircleCI's {@code /tmp/.bash_env-…}. */
    @Override
    public Path bashEnv() {
        return Path.of("/tmp/.bash_env-gantry");
    }

    @Override
    public Map<String, String> baseEnvironment() {
        return Map.of();
    }

    @Override
    public StepProcess start(List<String> command, Path directory, Map<String, String> environment)
            throws IOException {
        return ExecProcess.start(docker, primary, directory, environment, command);
    }

    @Override
    public Optional<Path> read(Path path, Path staging) throws IOException {
        try (InputStream tar = docker.copyArchiveFromContainerCmd(primary, path.toString()).exec()) {
            Tars.extract(tar, staging);
        } catch (NotFoundException e) {
            return Optional.empty();
        } catch (DockerException e) {
            throw new IOException("cannot copy " + path + " out of the container: " + message(e), e);
        }
        // the archive names the entry by the path's last name ("/" has none: its entries come at the top)
        Path name = path.getFileName();
        return Optional.of(name == null ? staging : staging.resolve(name.toString()));
    }

    @Override
    public void write(Path tree, Path directory) throws IOException, InterruptedException {
        String name = UUID.randomUUID() + ".tar";
        Path archive = mounts.transfer().resolve(name);
        try {
            Tars.create(tree, archive);
            Exec.Result result = Exec.quiet(docker, primary, null, List.of("/bin/sh", "-c",
                    "mkdir -p -- \"$1\" && tar -xf \"$2\" -C \"$1\"", "sh", directory.toString(),
                    MOUNTS + "/transfer/" + name));
            if (result.exitCode() != 0) {
                throw new IOException("cannot write into " + directory + " in the container: "
                        + result.output().strip());
            }
        } finally {
            Files.deleteIfExists(archive);
            Trees.delete(tree);
        }
    }

    @Override
    public Path share(String name, String content) throws IOException {
        Files.writeString(mounts.transfer().resolve(name), content, StandardCharsets.UTF_8);
        return Path.of(MOUNTS, "transfer", name);
    }

    @Override
    public boolean halted() {
        return Files.exists(mounts.control().resolve("halt"));
    }

    @Override
    public String remoteDocker(Consumer<String> say) throws SandboxException, InterruptedException {
        if (remoteDocker == null) {
            List<String> made = new ArrayList<>();
            try {
                remoteDocker = RemoteDocker.start(docker, task.engine(), task.puller(), primary,
                        task.request().name(), task.labels(), task.request().memoryMb(), made);
            } finally {
                sidecars.addAll(made);
            }
            say.accept("Started the job's own Docker engine: a rootless Podman in an unprivileged container beside"
                    + " this one, at " + RemoteDocker.DOCKER_HOST + " (DOCKER_HOST); docker build and docker run work;"
                    + " bind mounts name the engine's files, not the job's, as with CircleCI's remote Docker.");
        }
        return RemoteDocker.DOCKER_HOST;
    }

    @Override
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        int services = sidecars.size() - (remoteDocker == null ? 0 : 1);
        if (task.machine()) {
            lines.add("Executor: machine, emulated: the steps run in a container of the image, not in a virtual "
                    + "machine, as its user with passwordless sudo where the image gives it; Docker is the job's own "
                    + "rootless Podman engine at " + RemoteDocker.DOCKER_HOST + " (DOCKER_HOST).");
        }
        lines.add("Executor: docker. Steps run in container " + DockerExecutor.shortId(primary)
                + (services == 0 ? "" : " with " + services + " service container" + (services == 1 ? "" : "s")
                + " on its localhost") + ".");
        lines.addAll(notes);
        return lines;
    }

    @Override
    public void close() {
        for (String sidecar : sidecars) {
            remove(docker, sidecar);
        }
        remove(docker, primary);
    }

    /** Kills and removes a container; a container already gone is fine, any other failure is logged. */
    static void remove(DockerClient docker, String id) {
        try {
            docker.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
        } catch (NotFoundException e) {
            // already gone
        } catch (RuntimeException e) {
            LOG.warn("could not remove container {}: {}", DockerExecutor.shortId(id), message(e));
        }
    }

    /** The runtime's own words, without docker-java's "Status 500: " prefix and JSON wrapping where it can. */
    static String message(Throwable e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        int at = m.indexOf("\"message\":\"");
        if (at >= 0) {
            int end = m.indexOf('"', at + 11);
            return end > at ? m.substring(at + 11, end) : m;
        }
        return m.replaceFirst("^Status \\d+: ", "").strip();
    }

    /** The host side of the four mounts, made in the task's directory. */
    private record Mounts(Path bin, Path task, Path transfer, Path control) {
        static Mounts create(Path root) throws IOException {
            Mounts m = new Mounts(root.resolve("bin"), root.resolve("task-data"), root.resolve("transfer"),
                    root.resolve("control"));
            for (Path dir : List.of(m.bin, m.task, m.transfer, m.control)) {
                Files.createDirectories(dir);
                // readable by the image's user, whatever its uid; the task directory above stays 0700
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(dir == m.control ? "rwxrwxrwx"
                        : "rwxr-xr-x"));
            }
            InCircleci.install(m.bin);
            return m;
        }

        List<Bind> binds() {
            return List.of(new Bind(bin.toString(), new Volume(BIN), AccessMode.ro),
                    new Bind(task.toString(), new Volume(MOUNTS + "/task"), AccessMode.ro),
                    new Bind(transfer.toString(), new Volume(MOUNTS + "/transfer"), AccessMode.ro),
                    new Bind(control.toString(), new Volume(MOUNTS + "/control"), AccessMode.rw));
        }
    }
}
