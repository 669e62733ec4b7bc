package dev.gantry.agent.executor.docker;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import dev.gantry.agent.executor.SandboxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Docker API of the job's own, for {@code setup_remote_docker} and {@code machine} jobs: a sidecar container of
 * {@link #IMAGE} (built by {@code bin/containers}) in the primary's network namespace, running a rootless Podman
 * service on {@link #DOCKER_HOST}, so {@code docker build} and {@code docker run} work in the job and reach nothing
 * else.
 *
 * <p>The sidecar is not privileged: it runs as an unprivileged user in a user namespace of its own
 * ({@code UsernsMode auto}), with the default capabilities dropped to SETUID, SETGID and SYS_CHROOT (dropped one by
 * one: Podman hands {@code CapAdd}ed capabilities to a non-root user as ambient ones), {@code /dev/net/tun} for the
 * nested containers' network and the masked paths unmasked so that nested runc can mount proc and sysfs. A nested
 * {@code --privileged} container therefore gets no host device and no host file ({@code bin/lib/remote-docker-check.sh}
 * tries each escape). Its nested containers share its cgroup: the job's memory limit caps them all.
 *
 * <p>On Docker's engine, which has neither a user namespace per container nor {@code unmask}, the sidecar runs in the
 * host's user namespace as the unprivileged uid 2375 (its nested containers on the image's subordinate ids
 * 1000000-1065535, host ids that own nothing), with the same capabilities, {@code MaskedPaths} and
 * {@code ReadonlyPaths} empty (what {@code docker run --security-opt systempaths=unconfined} sends) and Podman's own
 * seccomp profile ({@link #SECCOMP_PROFILE}, from containers-common 0.50.1) in place of Docker's default one, which
 * refuses {@code unshare} and {@code mount} to a process without CAP_SYS_ADMIN: so the sidecar is confined as on
 * Podman but for the user namespace of its own.
 */
final class RemoteDocker {
    static final String IMAGE = "gantry/remote-docker:1";
    static final String DOCKER_HOST = "tcp://127.0.0.1:2375";
    /** What the sidecar logs once its nested service answers. */
    private static final String READY = "gantry-remote-docker: ready on " + DOCKER_HOST;
    private static final long READY_TIMEOUT_SECONDS = 60;
    private static final long PIDS = 4096;
    /** Podman's default seccomp profile, verbatim ({@code /usr/share/containers/seccomp.json}), a resource here. */
    static final String SECCOMP_PROFILE = "remote-docker-seccomp.json";
    private static final List<Capability> DROPPED = List.of(Capability.AUDIT_WRITE, Capability.CHOWN,
            Capability.DAC_OVERRIDE, Capability.FOWNER, Capability.FSETID, Capability.KILL, Capability.MKNOD,
            Capability.NET_BIND_SERVICE, Capability.NET_RAW, Capability.SETFCAP, Capability.SETPCAP);

    private RemoteDocker() {
    }

    /**
     * Starts the sidecar beside {@code primary} and waits until its API answers; returns its container id.
     *
     * @param made where the sidecar's id goes as soon as it exists, so that it is removed whatever happens next
     */
    static String start(DockerClient docker, Engine engine, ImagePuller puller, String primary, String name,
                        Map<String, String> labels, int memoryMb, List<String> made)
            throws SandboxException, InterruptedException {
        puller.ensure(ContainerSandbox.plainImage(IMAGE));
        HostConfig host = hostConfig(engine, primary, memoryMb);
        String id;
        try {
            id = docker.createContainerCmd(IMAGE).withName(name + "-docker-" + UUID.randomUUID().toString()
                    .substring(0, 8)).withUser("2375:2375").withLabels(labels).withHostConfig(host).exec().getId();
            made.add(id);
            docker.startContainerCmd(id).exec();
        } catch (DockerException e) {
            throw new SandboxException("cannot start the job's own Docker engine on " + engine.title() + " (it "
                    + "needs user namespaces, /dev/net/tun and, on Podman, subordinate ids for \"containers\"; "
                    + "bin/containers setup prepares them): " + ContainerSandbox.message(e), e);
        }
        awaitReady(docker, id);
        return id;
    }

    /** The sidecar's host settings on {@code engine}: see the class comment. */
    static HostConfig hostConfig(Engine engine, String primary, int memoryMb) {
        HostConfig host = switch (engine) {
            case PODMAN -> HostConfig.newHostConfig()
                    .withUsernsMode("auto:size=1065536")
                    // the nested runc reads these; read-only, and the sidecar's user namespace owns nothing in them
                    .withBinds(Bind.parse("/sys:/sys:ro"), Bind.parse("/sys/fs/cgroup:/sys/fs/cgroup:ro"))
                    .withSecurityOpts(List.of("unmask=ALL"));
            case DOCKER -> new UnmaskedHostConfig().withSecurityOpts(List.of("seccomp=" + seccompProfile()));
        };
        host.withNetworkMode("container:" + primary)
                .withCapDrop(DROPPED.toArray(Capability[]::new))
                .withDevices(new Device("rwm", "/dev/net/tun", "/dev/net/tun"))
                .withPidsLimit(PIDS);
        if (memoryMb > 0) {
            host.withMemory(memoryMb * 1024L * 1024L);
        }
        return host;
    }

    /** The profile's JSON, as Docker takes it in {@code seccomp=}: the file's content, not its name. */
    static String seccompProfile() {
        try (InputStream in = RemoteDocker.class.getResourceAsStream(SECCOMP_PROFILE)) {
            if (in == null) {
                throw new IllegalStateException("the agent lacks its resource " + SECCOMP_PROFILE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Docker's {@code MaskedPaths} and {@code ReadonlyPaths}, empty: the nested runc mounts proc and sysfs, which the
     * kernel refuses where paths of them are masked. docker-java 3.7's HostConfig has neither field.
     */
    static final class UnmaskedHostConfig extends HostConfig {
        private static final long serialVersionUID = 1L;

        @JsonProperty("MaskedPaths")
        private final List<String> maskedPaths = List.of();

        @JsonProperty("ReadonlyPaths")
        private final List<String> readonlyPaths = List.of();

        List<String> maskedPaths() {
            return maskedPaths;
        }

        List<String> readonlyPaths() {
            return readonlyPaths;
        }
    }

    /** Follows the sidecar's log until it says it is ready (an exec cannot join its user and network namespaces). */
    private static void awaitReady(DockerClient docker, String id) throws SandboxException, InterruptedException {
        CountDownLatch ready = new CountDownLatch(1);
        StringBuilder log = new StringBuilder();
        try (ResultCallback.Adapter<Frame> follow = docker.logContainerCmd(id).withStdOut(true).withStdErr(true)
                .withFollowStream(true).exec(new ResultCallback.Adapter<>() {
                    @Override
                    public void onNext(Frame frame) {
                        synchronized (log) {
                            log.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                            if (log.indexOf(READY) >= 0) {
                                ready.countDown();
                            }
                        }
                    }
                })) {
            if (!ready.await(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                String said;
                synchronized (log) {
                    said = log.toString().strip();
                }
                throw new SandboxException("the job's own Docker engine did not start within "
                        + READY_TIMEOUT_SECONDS + " s" + (said.isEmpty() ? "" : "; it said: " + said));
            }
        } catch (java.io.IOException e) {
            // closing the log stream: nothing to do
        }
    }
}
