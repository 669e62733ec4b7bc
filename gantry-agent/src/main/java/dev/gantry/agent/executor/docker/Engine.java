package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.model.Version;
import java.util.List;

/**
 * Which engine serves the Docker Engine API the agent talks to. Jobs' containers need almost nothing engine-specific
 * (the same create, exec, archive and pull calls work on both), but for two things:
 * <ul>
 * <li>the name of the machine the containers run on, {@link #hostNames}: Podman writes
 * {@code host.containers.internal} into every container's {@code /etc/hosts}, Docker only names it when asked;</li>
 * <li>the job's own Docker engine, see {@link RemoteDocker}: Podman has a user namespace per container
 * ({@code UsernsMode auto}) and {@code unmask}, Docker has neither, and Docker's default seccomp profile refuses what
 * a rootless Podman inside needs.</li>
 * </ul>
 */
enum Engine {
    DOCKER("Docker"),
    PODMAN("Podman");

    private final String title;

    Engine(String title) {
        this.title = title;
    }

    /** Podman's {@code /version} lists a component named "Podman Engine"; Docker's "Engine", "containerd", … */
    static Engine of(Version version) {
        return version.getComponents() != null && version.getComponents().stream()
                .anyMatch(c -> c.getName() != null && c.getName().toLowerCase().contains("podman")) ? PODMAN : DOCKER;
    }

    String title() {
        return title;
    }

    /**
     * What the primary's {@code ExtraHosts} add so that a job reaches the machine its containers run on (a Gantry
     * server there, say) by the same name on both engines: on Docker, Podman's {@code host.containers.internal} and
     * Docker's own {@code host.docker.internal}, both at {@code host-gateway} (the default bridge's gateway, Docker
     * 20.10 and later); on Podman nothing, as it writes the first itself. Service containers share the primary's.
     */
    List<String> hostNames() {
        return this == DOCKER ? List.of("host.containers.internal:host-gateway", "host.docker.internal:host-gateway")
                : List.of();
    }
}
