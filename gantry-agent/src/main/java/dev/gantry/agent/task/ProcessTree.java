package dev.gantry.agent.task;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kills a process and everything it started: TERM to all, then KILL to what is still alive after a grace period.
 *
 * <p>The tree is read before anything is signalled, because a child whose parent dies is re-parented and leaves
 * the tree. Processes that already left it ({@code sleep 1000 &} in a step that has ended, a daemon) are found by
 * the marker every task process carries in its environment ({@link #MARKER_VARIABLE}), read from
 * {@code /proc/<pid>/environ} on Linux, as Jenkins' process tree killer does. Stateless and thread-safe.
 */
final class ProcessTree {
    /** Set in every process a task starts, to a value unique to the task. */
    static final String MARKER_VARIABLE = "GANTRY_AGENT_TASK";
    private static final Duration POLL = Duration.ofMillis(50);

    private ProcessTree() {
    }

    /** Kills {@code root} and its descendants. */
    static void kill(ProcessHandle root, Duration grace) throws InterruptedException {
        Map<Long, ProcessHandle> all = new LinkedHashMap<>();
        all.put(root.pid(), root);
        root.descendants().forEach(p -> all.put(p.pid(), p));
        terminate(all, grace);
    }

    /** Kills every live process whose environment carries this task's marker (Linux only; elsewhere none). */
    static void killMarked(String marker, Duration grace) throws InterruptedException {
        Map<Long, ProcessHandle> all = new LinkedHashMap<>();
        for (ProcessHandle p : marked(marker)) {
            all.put(p.pid(), p);
            p.descendants().forEach(d -> all.put(d.pid(), d));
        }
        terminate(all, grace);
    }

    /** The live processes that carry the marker. */
    static List<ProcessHandle> marked(String marker) {
        byte[] needle = (MARKER_VARIABLE + "=" + marker + "\0").getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> found = new ArrayList<>();
        ProcessHandle.allProcesses().filter(p -> p.pid() != self && running(p)).forEach(p -> {
            if (contains(environ(p.pid()), needle)) {
                found.add(p);
            }
        });
        return found;
    }

    private static void terminate(Map<Long, ProcessHandle> all, Duration grace) throws InterruptedException {
        if (all.isEmpty()) {
            return;
        }
        all.values().forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        while (System.nanoTime() < deadline && all.values().stream().anyMatch(ProcessTree::running)) {
            // children forked while we were signalling are still descendants of the live ones: take them too
            for (ProcessHandle p : List.copyOf(all.values())) {
                p.descendants().filter(d -> !all.containsKey(d.pid())).forEach(d -> {
                    all.put(d.pid(), d);
                    d.destroy();
                });
            }
            Thread.sleep(POLL);
        }
        all.values().stream().filter(ProcessTree::running).forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * Alive and not a zombie. A killed orphan stays a zombie until init reaps it, and some container inits never
     * do; {@link ProcessHandle#isAlive} counts zombies as alive.
     */
    static boolean running(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            int end = stat.lastIndexOf(')');
            return end < 0 || end + 2 >= stat.length() || stat.charAt(end + 2) != 'Z';
        } catch (IOException | SecurityException e) {
            return p.isAlive(); // not Linux, or it just went away
        }
    }

    private static byte[] environ(long pid) {
        try {
            return Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
        } catch (IOException | SecurityException e) {
            return new byte[0]; // gone, not ours, or not Linux
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            // a variable starts at 0 or after a NUL
            if (i > 0 && haystack[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
