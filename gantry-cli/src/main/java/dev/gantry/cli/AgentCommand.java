package dev.gantry.cli;

import dev.gantry.agent.Agent;
import dev.gantry.agent.AgentSettings;
import dev.gantry.agent.executor.Executor;
import dev.gantry.agent.executor.HostShellExecutor;
import dev.gantry.agent.executor.SandboxException;
import dev.gantry.agent.executor.docker.DockerExecutor;
import dev.gantry.agent.protocol.HttpAgentServer;
import dev.gantry.agent.protocol.RetryPolicy;
import dev.gantry.agent.protocol.UnauthorizedException;
import dev.gantry.agent.task.TaskSettings;
import dev.gantry.db.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code gantry agent}: runs a build agent in the foreground until Ctrl-C (or SIGTERM), or with {@code --parent-pid}
 * until that process ends. On shutdown it stops claiming and kills the processes of running tasks without reporting
 * them: their leases expire on the server, which retries the jobs elsewhere.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = {"Run a build agent that takes jobs from a Gantry server until Ctrl-C.",
            "Steps run on this machine's shell, each task in its own directory with its own HOME."})
final class AgentCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(AgentCommand.class);
    static final String TOKEN_VARIABLE = "GANTRY_AGENT_TOKEN";
    /** How long shutdown waits for running tasks' processes to be killed. */
    private static final Duration SHUTDOWN_WAIT = TaskSettings.DEFAULT_KILL_GRACE.plusSeconds(2);
    /**
     * How often the agent looks whether its parent still runs. {@code ProcessHandle.onExit} of a process that is not
     * this one's child polls too, but backs off to every 5 s.
     */
    private static final Duration PARENT_CHECK_EVERY = Duration.ofMillis(500);

    @Spec
    CommandSpec spec;

    @Option(names = "--server", required = true, paramLabel = "URL",
            description = "The server's base URL, e.g. http://127.0.0.1:8080.")
    String server;

    @Option(names = "--token", paramLabel = "T",
            description = "The agent token (the server's GANTRY_HOME/agent-token). Default: " + TOKEN_VARIABLE + ".")
    String token;

    @Option(names = "--token-file", paramLabel = "PATH", description = "Read the agent token from this file.")
    Path tokenFile;

    @Option(names = "--cpu", paramLabel = "N", description = "CPUs to offer. Default: the available processors.")
    Integer cpu;

    @Option(names = "--memory", paramLabel = "GB", description = "Memory to offer, in GiB. Default: physical memory.")
    Double memoryGb;

    @Option(names = "--disk", paramLabel = "GB",
            description = "Disk to offer, in GB. Default: what is free where the work directory is.")
    Integer diskGb;

    @Option(names = "--pool", paramLabel = "P", defaultValue = AgentSettings.DEFAULT_POOL,
            description = "The pool whose jobs this agent runs (jobs pinned by image to a pool, e.g. macos, run only "
                    + "there). Default: ${DEFAULT-VALUE}.")
    String pool;

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where task directories go. Default: GANTRY_HOME/agent-work, else a temp directory.")
    Path workDir;

    @Option(names = "--name", paramLabel = "N", description = "The name the server shows. Default: the host name.")
    String name;

    @Option(names = "--executor", paramLabel = "KIND", defaultValue = "docker",
            description = "Where jobs run: docker (each job in containers of its own images; the default) or shell "
                    + "(on this host as this user, NOT isolated: only for a trusted single-user set-up). "
                    + "Default: ${DEFAULT-VALUE}.")
    String executor;

    @Option(names = "--docker-host", paramLabel = "URL",
            description = "The Docker Engine API, Docker's or Podman's (podman system service): unix:///PATH or "
                    + "tcp://HOST:PORT. Default: DOCKER_HOST, else the first of /var/run/docker.sock, "
                    + "/run/podman/podman.sock and $XDG_RUNTIME_DIR/podman/podman.sock that exists.")
    URI dockerHost;

    @Option(names = "--result-window", paramLabel = "DURATION", defaultValue = "24h",
            description = "How long the result of a finished task is kept and offered again while the server cannot "
                    + "take it (a server or database outage, this agent restarting): 90s, 30m, 24h. "
                    + "Default: ${DEFAULT-VALUE}.")
    String resultWindow;

    @Option(names = "--parent-pid", paramLabel = "PID",
            description = "Stop (killing running jobs, as on Ctrl-C) once process PID has ended. A server passes its "
                    + "own pid to the local agents it starts, so that none outlives it, even when it is killed.")
    Long parentPid;

    @Option(names = "--ecr-endpoint", paramLabel = "URL",
            description = "Amazon ECR's API endpoint for the registry logins of images with aws_auth, e.g. a VPC "
                    + "endpoint. Default: AWS's endpoint in the registry's region.")
    URI ecrEndpoint;

    @Override
    public Integer call() throws InterruptedException, IOException {
        Map<String, String> environment = System.getenv();
        AgentSettings settings = settings(environment);
        if (parentPid != null) {
            exitWhenGone(parentPid);
        }
        LOG.info("agent settings: {}", settings);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Executor jobs = executor(settings, environment, out);
        HttpAgentServer http = new HttpAgentServer(settings.server(), settings.token(), RetryPolicy.DEFAULT);
        Agent agent = new Agent(settings, http,
                TaskSettings.defaults(settings.workDir(), settings.server().toString(), jobs, environment)
                        .withResultWindow(resultWindow()),
                registration -> {
                    out.println("Gantry agent " + settings.name() + " registered with " + settings.server() + " (cpu="
                            + settings.cpu() + ", memory=" + settings.memoryMb() + " MiB)");
                    out.flush();
                });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            agent.close();
            try {
                agent.awaitIdle(SHUTDOWN_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gantry-agent-shutdown"));
        try {
            agent.run();
            return 0;
        } catch (UnauthorizedException e) {
            err.println("gantry agent: " + e.getMessage());
            err.flush();
            return 1;
        }
    }

    /**
     * Exits once process {@code pid} has ended; the JVM's exit runs the shutdown hook, which kills running tasks. A
     * pid given to a new process since does not count as the parent: {@link ProcessHandle#isAlive} compares start
     * times.
     */
    private void exitWhenGone(long pid) {
        ProcessHandle parent = ProcessHandle.of(pid).orElseThrow(() -> new ParameterException(spec.commandLine(),
                "--parent-pid " + pid + ": no such process (has it ended already?)"));
        Thread.ofPlatform().name("gantry-parent-watch").daemon(true).start(() -> {
            try {
                while (parent.isAlive()) {
                    Thread.sleep(PARENT_CHECK_EVERY);
                }
            } catch (InterruptedException e) {
                return;
            }
            LOG.warn("process {}, which started this agent, has ended: stopping", pid);
            System.exit(0);
        });
    }

    /**
     * The executor {@code --executor} names, checked before the agent registers: a docker agent whose runtime does
     * not answer would take jobs only to fail them, so it stops here with what to do instead (exit 2).
     */
    private Executor executor(AgentSettings settings, Map<String, String> environment, PrintWriter out) {
        switch (executor) {
            case "shell" -> {
                out.println("Executor: host shell. Jobs run on this host as this user and are NOT isolated from it "
                        + "or from each other; use it only for a trusted single-user set-up.");
                out.flush();
                return new HostShellExecutor(TaskSettings.DEFAULT_KILL_GRACE);
            }
            case "docker" -> {
                URI host = dockerHost != null ? dockerHost : DockerExecutor.findHost(environment).orElseThrow(() ->
                        new ParameterException(spec.commandLine(), "no Docker Engine API found: set DOCKER_HOST or "
                                + "--docker-host, start Docker or 'podman system service' (bin/containers setup "
                                + "does it here), or run jobs unisolated on this host with --executor shell"));
                DockerExecutor docker = new DockerExecutor(host, settings.name(), ecrEndpoint);
                try {
                    out.println("Executor: docker, on " + docker.version());
                    out.flush();
                    docker.removeLeftovers();
                } catch (SandboxException | IOException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
                return docker;
            }
            default -> throw new ParameterException(spec.commandLine(), "--executor must be docker or shell, got '"
                    + executor + "'");
        }
    }

    private AgentSettings settings(Map<String, String> environment) {
        try {
            Path work = workDir == null ? AgentSettings.defaultWorkDir(environment) : workDir;
            return new AgentSettings(uri(), token(environment), name == null ? AgentSettings.defaultName() : name,
                    cpu == null ? AgentSettings.defaultCpu() : cpu,
                    memoryGb == null ? AgentSettings.defaultMemoryMb() : (int) Math.round(memoryGb * 1024),
                    diskGb == null ? AgentSettings.defaultDiskGb(work) : diskGb, pool, work);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Duration resultWindow() {
        return Durations.parse(resultWindow).filter(Duration::isPositive).orElseThrow(() -> new ParameterException(
                spec.commandLine(), "--result-window must be a duration like 90s, 30m or 24h, got '" + resultWindow
                + "'"));
    }

    private URI uri() {
        try {
            return new URI(server);
        } catch (URISyntaxException e) {
            throw new ParameterException(spec.commandLine(), "--server must be a URL, got '" + server + "'");
        }
    }

    private String token(Map<String, String> environment) {
        if (token != null && tokenFile != null) {
            throw new ParameterException(spec.commandLine(), "give --token or --token-file, not both");
        }
        if (token != null) {
            return token;
        }
        if (tokenFile != null) {
            try {
                return Files.readString(tokenFile).strip();
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--token-file " + tokenFile + ": cannot read: " + e);
            }
        }
        String fromEnvironment = environment.get(TOKEN_VARIABLE);
        if (fromEnvironment == null || fromEnvironment.isBlank()) {
            throw new ParameterException(spec.commandLine(),
                    "an agent token is required: --token, --token-file or " + TOKEN_VARIABLE);
        }
        return fromEnvironment;
    }
}
