package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Version;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.gantry.agent.executor.Executor;
import dev.gantry.agent.executor.Sandbox;
import dev.gantry.agent.executor.SandboxException;
import dev.gantry.agent.executor.SandboxRequest;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each task in containers of the job's own images through the Docker Engine API, against Docker or Podman's
 * compatible service ({@code podman system service}). The first image is the primary container, where every step
 * runs as the image's user; the other images are service containers sharing its network namespace
 * ({@code network_mode: container:}), so they are reached on {@code localhost} as in CircleCI. See
 * {@link ContainerSandbox} for one task's containers.
 *
 * <p>Everything this executor creates carries the labels {@link #AGENT_LABEL} (the agent's name) and
 * {@link #PROCESS_LABEL} (the agent process that made it), so that {@link #removeLeftovers} can remove what a crashed
 * run of the agent left without touching a live agent of the same name. Thread-safe: the client is shared.
 */
public final class DockerExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(DockerExecutor.class);
    static final String AGENT_LABEL = "dev.gantry.agent";
    static final String PROCESS_LABEL = "dev.gantry.agent.process";
    static final String TASK_LABEL = "dev.gantry.task";

    private final DockerClient docker;
    private final URI host;
    private final String agentName;
    private final EcrLogin ecr;
    private final String process = processLabel(ProcessHandle.current());
    /** Which engine answers at {@link #host}: asked once, by {@link #version} or the first task. */
    private volatile Engine engine;

    /**
     * @param host      the Docker Engine API's address: {@code unix:///var/run/docker.sock},
     *                  {@code unix:///run/podman/podman.sock} or {@code tcp://host:2375}
     * @param agentName the agent's name, on every container's labels
     * @param ecrEndpoint Amazon ECR's API endpoint for {@code aws_auth} logins (a VPC endpoint), or null for AWS's
     *                  own in the registry's region
     */
    public DockerExecutor(URI host, String agentName, URI ecrEndpoint) {
        DockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder()
                .withDockerHost(host.toString()).build();
        // no response timeout: a step's output stream may be quiet for as long as its no_output_timeout
        ZerodepDockerHttpClient http = new ZerodepDockerHttpClient.Builder().dockerHost(config.getDockerHost())
                .sslConfig(config.getSSLConfig()).maxConnections(64).connectionTimeout(Duration.ofSeconds(10)).build();
        this.docker = DockerClientImpl.getInstance(config, http);
        this.host = host;
        this.agentName = agentName;
        this.ecr = new EcrLogin(ecrEndpoint);
    }

    /**
     * Where the agent finds the Docker Engine API when not told: {@code DOCKER_HOST}, else the first socket that
     * exists of Docker's and rootful and rootless Podman's; empty when there is none.
     */
    public static Optional<URI> findHost(Map<String, String> environment) {
        String configured = environment.get("DOCKER_HOST");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(URI.create(configured.strip()));
        }
        String runtimeDir = environment.get("XDG_RUNTIME_DIR");
        for (String socket : new String[] {"/var/run/docker.sock", "/run/podman/podman.sock",
                runtimeDir == null ? null : runtimeDir + "/podman/podman.sock"}) {
            if (socket != null && java.nio.file.Files.exists(java.nio.file.Path.of(socket))) {
                return Optional.of(URI.create("unix://" + socket));
            }
        }
        return Optional.empty();
    }

    @Override
    public String name() {
        return "docker";
    }

    /** Asks the runtime for its version: proves at start that the agent can run jobs, and names the runtime. */
    public String version() throws SandboxException {
        Version v = askVersion();
        return engine.title() + " " + v.getVersion() + " (API " + v.getApiVersion() + ") at " + host;
    }

    private Version askVersion() throws SandboxException {
        try {
            Version v = docker.versionCmd().exec();
            engine = Engine.of(v);
            return v;
        } catch (RuntimeException e) {
            throw new SandboxException("the container runtime at " + host + " does not answer: " + e.getMessage(), e);
        }
    }

    private Engine engine() throws SandboxException {
        if (engine == null) {
            askVersion();
        }
        return engine;
    }

    @Override
    public Sandbox open(SandboxRequest request, Consumer<String> say) throws SandboxException, InterruptedException {
        return ContainerSandbox.open(docker, engine(), ecr, request, Map.of(AGENT_LABEL, agentName, PROCESS_LABEL,
                process, TASK_LABEL, request.name()), say);
    }

    @Override
    public void removeLeftovers() throws IOException {
        try {
            for (Container c : docker.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(AGENT_LABEL, agentName)).exec()) {
                String owner = c.getLabels() == null ? null : c.getLabels().get(PROCESS_LABEL);
                if (owner != null && !owner.equals(process) && alive(owner)) {
                    continue; // a live agent of the same name on this host: its containers are its own
                }
                if (owner != null && owner.equals(process)) {
                    continue;
                }
                LOG.info("removing container {} ({}) left by an earlier run of agent {}", shortId(c.getId()),
                        c.getLabels().get(TASK_LABEL), agentName);
                ContainerSandbox.remove(docker, c.getId());
            }
        } catch (RuntimeException e) { // DockerException, or the transport's own for a runtime that went away
            throw new IOException("cannot list the containers of earlier runs at " + host + ": " + e.getMessage(), e);
        }
    }

    /** {@code host/pid/start}: which process made a container, unique even when pids are reused. */
    static String processLabel(ProcessHandle p) {
        long started = p.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
        return hostName() + "/" + p.pid() + "/" + started;
    }

    private static boolean alive(String owner) {
        String[] parts = owner.split("/");
        if (parts.length != 3 || !parts[0].equals(hostName())) {
            return true; // another host's agent: not ours to judge
        }
        return ProcessHandle.of(Long.parseLong(parts[1])).map(DockerExecutor::processLabel)
                .filter(owner::equals).isPresent();
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    static String shortId(String id) {
        return id.length() > 12 ? id.substring(0, 12) : id;
    }
}
