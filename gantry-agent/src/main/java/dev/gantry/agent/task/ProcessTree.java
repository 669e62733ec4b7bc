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
    private static final Path PROC = Path.of("/proc");
    /** In the fields after the command name: the state (3rd field of the line) and the start time (22nd). */
    private static final int STATE = 0;
    private static final int START_TIME = 19;

    private ProcessTree() {
    }

    /** Kills {@code root} and its descendants. */
    static void kill(ProcessHandle root, Duration grace) throws InterruptedException {
        Map<Long, ProcessHandle> all = new LinkedHashMap<>();
        all.put(root.pid(), root);
        root.descendants().forEach(p -> all.put(p.pid(), p));
        terminate(all, grace);
    }

    /**
     * Kills every live process whose environment carries this task's marker (Linux only; elsewhere none).
     *
     * @param startedSince {@link #threadStartTicks()} read on a thread that started before the task's first process
     */
    static void killMarked(String marker, long startedSince, Duration grace) throws InterruptedException {
        Map<Long, ProcessHandle> all = new LinkedHashMap<>();
        for (ProcessHandle p : marked(marker, startedSince)) {
            all.put(p.pid(), p);
            p.descendants().forEach(d -> all.put(d.pid(), d));
        }
        terminate(all, grace);
    }

    /**
     * The live processes that carry the marker, among those started at or after {@code startedSince} (clock ticks
     * since boot, as {@code /proc/<pid>/stat} gives them): a process of the task cannot be older than the task, and
     * reading only the younger ones' environments spares a scan of every process on the machine per task.
     */
    static List<ProcessHandle> marked(String marker, long startedSince) {
        byte[] needle = (MARKER_VARIABLE + "=" + marker + "\0").getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        String[] entries = PROC.toFile().list();
        List<ProcessHandle> found = new ArrayList<>();
        for (String entry : entries == null ? new String[0] : entries) {
            long pid = pidOf(entry);
            if (pid <= 0 || pid == self) {
                continue;
            }
            String[] stat = statFields(pid);
            if (stat.length > START_TIME && stat[STATE].charAt(0) != 'Z'
                    && Long.parseLong(stat[START_TIME]) >= startedSince && contains(environ(pid), needle)) {
                ProcessHandle.of(pid).ifPresent(found::add);
            }
        }
        return found;
    }

    /**
     * When the calling thread started, in clock ticks since boot ({@code /proc/thread-self/stat}); 0 where that
     * cannot be read, which makes {@link #marked} look at every process.
     */
    static long threadStartTicks() {
        String[] stat = fields(PROC.resolve("thread-self/stat"));
        return stat.length > START_TIME ? Long.parseLong(stat[START_TIME]) : 0;
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
        String[] stat = statFields(p.pid());
        return stat.length <= STATE ? p.isAlive() : stat[STATE].charAt(0) != 'Z'; // unreadable: gone, or not Linux
    }

    /** The fields of {@code /proc/<pid>/stat} after the command name, from the state on; empty if unreadable. */
    private static String[] statFields(long pid) {
        return fields(PROC.resolve(Long.toString(pid)).resolve("stat"));
    }

    private static String[] fields(Path stat) {
        try {
            String text = Files.readString(stat);
            // The command name, in parentheses, may itself hold spaces and parentheses: split after its last ')'.
            int end = text.lastIndexOf(')');
            return end < 0 || end + 2 >= text.length() ? new String[0] : text.substring(end + 2).split(" ");
        } catch (IOException | SecurityException e) {
            return new String[0];
        }
    }

    private static long pidOf(String entry) {
        for (int i = 0; i < entry.length(); i++) {
            if (entry.charAt(i) < '0' || entry.charAt(i) > '9') {
                return -1;
            }
        }
        return entry.isEmpty() || entry.length() > 18 ? -1 : Long.parseLong(entry);
    }

    private static byte[] environ(long pid) {
        try {
            return Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
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
