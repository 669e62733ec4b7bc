package dev.gantry.agent.executor;

import java.io.IOException;
import java.io.InputStream;
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
public final class ProcessTree {
    /** Set in every process a task starts, to a value unique to the task. */
    static final String MARKER_VARIABLE = "GANTRY_AGENT_TASK";
    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration KILL_WAIT = Duration.ofSeconds(2);
    /** Scans for marked processes at most per task: a job that keeps forking is not chased forever. */
    private static final int MARKED_SCANS = 5;
    private static final Duration RESCAN_PAUSE = Duration.ofMillis(20);
    private static final Path PROC = Path.of("/proc");
    /** The start time's place among the fields after the command name (the state is the first; 22nd of the line). */
    private static final int START_TIME = 19;
    /** Enough for any {@code stat} line: 52 numeric fields and a command name of at most 64 bytes. */
    private static final int STAT_BYTES = 2048;

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
        // A process in the middle of exec shows an empty environment for a moment (a step's background job that its
        // shell has just forked, say), so one scan can miss it: scan again after a pause, until a scan finds none.
        for (int scan = 1; scan <= MARKED_SCANS; scan++) {
            Map<Long, ProcessHandle> all = new LinkedHashMap<>();
            for (ProcessHandle p : marked(marker, startedSince)) {
                all.put(p.pid(), p);
                p.descendants().forEach(d -> all.put(d.pid(), d));
            }
            if (all.isEmpty() && scan > 1) {
                return;
            }
            terminate(all, grace);
            Thread.sleep(RESCAN_PAUSE);
        }
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
        byte[] buffer = new byte[STAT_BYTES];
        for (String entry : entries == null ? new String[0] : entries) {
            long pid = pidOf(entry);
            if (pid <= 0 || pid == self) {
                continue;
            }
            Stat stat = stat(PROC.resolve(entry).resolve("stat"), buffer);
            if (stat != null && stat.state() != 'Z' && stat.startTicks() >= startedSince
                    && contains(environ(pid), needle)) {
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
        Stat stat = stat(PROC.resolve("thread-self/stat"), new byte[STAT_BYTES]);
        return stat == null ? 0 : stat.startTicks();
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
        List<ProcessHandle> stubborn = all.values().stream().filter(ProcessTree::running).toList();
        stubborn.forEach(ProcessHandle::destroyForcibly);
        // KILL cannot be caught, but a process dies of it only when it next runs, which on a loaded machine can take
        // a while: wait for that (briefly), so that the task's processes are gone when the caller goes on.
        long killed = System.nanoTime() + KILL_WAIT.toNanos();
        while (System.nanoTime() < killed && stubborn.stream().anyMatch(ProcessTree::running)) {
            Thread.sleep(POLL);
        }
    }

    /**
     * Alive and not a zombie. A killed orphan stays a zombie until init reaps it, and some container inits never
     * do; {@link ProcessHandle#isAlive} counts zombies as alive.
     */
    public static boolean running(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        Stat stat = stat(PROC.resolve(Long.toString(p.pid())).resolve("stat"), new byte[STAT_BYTES]);
        return stat == null ? p.isAlive() : stat.state() != 'Z'; // unreadable: gone, or not Linux
    }

    /** What {@link #marked} needs of a process's (or thread's) {@code stat} file. */
    private record Stat(char state, long startTicks) {
    }

    /**
     * Reads a {@code stat} file into {@code buffer} and picks out the state and start time, without the strings a
     * split would make (the scan reads one per process on the machine); null if unreadable.
     */
    private static Stat stat(Path file, byte[] buffer) {
        int length;
        try (InputStream in = Files.newInputStream(file)) {
            length = in.readNBytes(buffer, 0, buffer.length);
        } catch (IOException | SecurityException e) {
            return null;
        }
        // The command name, in parentheses, may itself hold spaces and parentheses: the fields start after its
        // last ')', one space apart.
        int at = length - 1;
        while (at >= 0 && buffer[at] != ')') {
            at--;
        }
        if (at < 0 || at + 2 >= length) {
            return null;
        }
        int fieldStart = at + 2;
        char state = (char) buffer[fieldStart];
        for (int field = 0; field < START_TIME; field++) {
            while (fieldStart < length && buffer[fieldStart] != ' ') {
                fieldStart++;
            }
            fieldStart++;
        }
        long ticks = 0;
        int digits = 0;
        for (int i = fieldStart; i < length && buffer[i] >= '0' && buffer[i] <= '9'; i++, digits++) {
            ticks = ticks * 10 + (buffer[i] - '0');
        }
        return digits == 0 ? null : new Stat(state, ticks);
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
