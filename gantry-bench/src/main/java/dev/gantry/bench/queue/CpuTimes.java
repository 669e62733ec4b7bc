package dev.gantry.bench.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's CPU time so far, in clock ticks of all cores together, from the first line of {@code /proc/stat}. Two
 * readings tell how busy the cores were between them, and how much of their time the hypervisor gave to other guests
 * (steal): on these shared machines the same code runs at very different speeds, and the figures say so.
 *
 * @param busy  user, nice, system, irq and softirq time
 * @param steal time the hypervisor ran something else while this machine had work
 * @param total all of it, idle and waiting for I/O included
 */
record CpuTimes(long busy, long steal, long total) {
    /** What a machine without {@code /proc/stat} reads: every share comes out NaN. */
    static final CpuTimes UNKNOWN = new CpuTimes(0, 0, 0);

    static CpuTimes now() {
        try (var lines = Files.lines(Path.of("/proc/stat"))) {
            return lines.findFirst().map(CpuTimes::parse).orElse(UNKNOWN);
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** Parses {@code cpu user nice system idle iowait irq softirq steal [guest guest_nice]}. */
    static CpuTimes parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 9) {
            throw new IllegalArgumentException("not the total line of /proc/stat: " + line);
        }
        long[] t = new long[8];
        for (int i = 0; i < t.length; i++) {
            t[i] = Long.parseLong(f[i + 1]);
        }
        long busy = t[0] + t[1] + t[2] + t[5] + t[6];
        long total = busy + t[3] + t[4] + t[7];
        return new CpuTimes(busy, t[7], total);
    }

    /** The share of the time since {@code start} that the cores were busy; NaN when unknown. */
    double busySince(CpuTimes start) {
        return share(busy - start.busy, start);
    }

    /** The share of the time since {@code start} that the hypervisor took (steal); NaN when unknown. */
    double stealSince(CpuTimes start) {
        return share(steal - start.steal, start);
    }

    private double share(long ticks, CpuTimes start) {
        long elapsed = total - start.total;
        return elapsed <= 0 || start.total == 0 ? Double.NaN : (double) ticks / elapsed;
    }
}
