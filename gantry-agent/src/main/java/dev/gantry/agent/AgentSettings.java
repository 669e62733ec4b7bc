package dev.gantry.agent;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * An agent's settings, validated when made. {@link #toString} masks the token, so the settings can be logged.
 *
 * @param server   the server's base URL, {@code http(s)://host:port}
 * @param token    the agent token ({@code gnt_agent_…})
 * @param name     shown on the server; default the host name
 * @param cpu      CPUs offered; default the available processors
 * @param memoryMb memory offered in MiB; default the machine's physical memory
 * @param diskGb   disk offered in GB; default what is free where the work directory is
 * @param pool     the pool the server places its jobs from ({@code default}, or e.g. {@code macos})
 * @param workDir  where task directories are made
 */
public record AgentSettings(URI server, String token, String name, int cpu, int memoryMb, int diskGb, String pool,
                            Path workDir) {
    /** The pool of an agent that names none: where every job not pinned to another pool runs. */
    public static final String DEFAULT_POOL = "default";

    /** The work directory under {@code GANTRY_HOME}. */
    public static final String WORK_DIR_NAME = "agent-work";

    public AgentSettings {
        if (server == null || !("http".equals(server.getScheme()) || "https".equals(server.getScheme()))
                || server.getHost() == null) {
            throw new IllegalArgumentException("server must be an http:// or https:// URL with a host, got " + server);
        }
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("an agent token is required");
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        if (cpu < 1) {
            throw new IllegalArgumentException("cpu must be at least 1, got " + cpu);
        }
        if (memoryMb < 1) {
            throw new IllegalArgumentException("memory must be at least 1 MiB, got " + memoryMb);
        }
        if (diskGb < 1) {
            throw new IllegalArgumentException("disk must be at least 1 GB, got " + diskGb);
        }
        if (pool == null || !pool.matches("[a-z0-9][a-z0-9_.-]{0,62}")) {
            throw new IllegalArgumentException("pool must be 1 to 63 lower-case letters, digits, '.', '_' or '-', got "
                    + pool);
        }
        if (workDir == null) {
            throw new IllegalArgumentException("a work directory is required");
        }
        token = token.strip();
        workDir = workDir.toAbsolutePath();
    }

    /** The host's name, or {@code agent} if it has none that resolves. */
    public static String defaultName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String host = System.getenv("HOSTNAME");
            return host == null || host.isBlank() ? "agent" : host;
        }
    }

    public static int defaultCpu() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** Physical memory in MiB. */
    public static int defaultMemoryMb() {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return (int) Math.min(Integer.MAX_VALUE, os.getTotalMemorySize() / (1024 * 1024));
    }

    /** The free space, in whole GB, of the file system that holds {@code workDir} (or its nearest existing parent). */
    public static int defaultDiskGb(Path workDir) {
        Path existing = workDir.toAbsolutePath();
        while (existing.getParent() != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        try {
            long gb = Files.getFileStore(existing).getUsableSpace() / 1_000_000_000L;
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, gb));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the free space under " + existing, e);
        }
    }

    /** {@code $GANTRY_HOME/agent-work} when GANTRY_HOME is set, else a directory under the system's temp dir. */
    public static Path defaultWorkDir(Map<String, String> environment) {
        String home = environment.get("GANTRY_HOME");
        return home != null && !home.isBlank() ? Path.of(home, WORK_DIR_NAME)
                : Path.of(System.getProperty("java.io.tmpdir"), "gantry-" + WORK_DIR_NAME);
    }

    @Override
    public String toString() {
        String masked = token.length() <= 10 ? "****" : token.substring(0, 10) + "****";
        return "AgentSettings[server=" + server + ", token=" + masked + ", name=" + name + ", cpu=" + cpu
                 + ", memoryMb=" + memoryMb + ", diskGb=" + diskGb + ", pool=" + pool + ", workDir=" + workDir + "]";
    }
}
