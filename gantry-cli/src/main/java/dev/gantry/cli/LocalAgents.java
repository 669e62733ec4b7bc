package dev.gantry.cli;

import dev.gantry.scheduler.InstanceType;
import dev.gantry.scheduler.fleet.LocalProvider;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code local} fleet provider: each instance the autoscaler launches is a build agent in a child process of its
 * own (the same jar, {@code gantry agent}), offering its instance type's CPU, memory and disk and registered under
 * the instance id, so that the jobs it runs, and a crash of one, stay apart from the server. Output goes to
 * {@code $GANTRY_HOME/logs/<instance id>.log}, work to {@code $GANTRY_HOME/agent-work/<instance id>}, pid files to
 * {@code $GANTRY_HOME/local-agents}. Each agent gets the server's pid ({@code --parent-pid}) and exits when the server
 * is gone, even one killed with SIGKILL, so no agent outlives its server.
 */
final class LocalAgents {
    private LocalAgents() {
    }

    static LocalProvider provider(URI server, Path agentTokenFile, Path home, String executor) {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        String serverPid = Long.toString(ProcessHandle.current().pid());
        LocalProvider.Command command = (instanceId, type) -> List.of(java, "-cp", classPath, Main.class.getName(),
                "agent", "--server", server.toString(), "--token-file", agentTokenFile.toString(),
                "--cpu", Integer.toString(type.capacity().vcpu()), "--memory", memoryGb(type),
                "--disk", Integer.toString(type.capacity().diskGb()), "--name", instanceId,
                "--work-dir", home.resolve("agent-work").resolve(instanceId).toString(), "--executor", executor,
                "--parent-pid", serverPid);
        return new LocalProvider(command, home.resolve("logs"), home.resolve("local-agents"),
                LocalProvider.DEFAULT_GRACE);
    }

    private static String memoryGb(InstanceType type) {
        return Double.toString(type.capacity().memoryMb() / 1024.0);
    }
}
