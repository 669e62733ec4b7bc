package dev.gantry.agent;

import java.time.Duration;

/**
 * The agent's CPU and memory less what its running tasks take. The claim loop offers what is free and waits while
 * too little is free for even the smallest class; task threads give their share back when they end. Thread-safe.
 */
final class Capacity {
    private final int cpu;
    private final int memoryMb;
    private int usedCpu;
    private int usedMemoryMb;
    private int running;

    Capacity(int cpu, int memoryMb) {
        this.cpu = cpu;
        this.memoryMb = memoryMb;
    }

    synchronized void take(ResourceSizes.Size size) {
        usedCpu += size.cpu();
        usedMemoryMb += size.memoryMb();
        running++;
    }

    synchronized void giveBack(ResourceSizes.Size size) {
        usedCpu -= size.cpu();
        usedMemoryMb -= size.memoryMb();
        running--;
        notifyAll();
    }

    /**
     * Waits until a task could fit (or nothing runs, so an agent smaller than the smallest class still asks), then
     * answers what is free, never below zero: the server may hand out a task larger than what was offered.
     */
    synchronized ResourceSizes.Size awaitRoom() throws InterruptedException {
        while (running > 0 && (cpu - usedCpu < ResourceSizes.SMALLEST.cpu()
                || memoryMb - usedMemoryMb < ResourceSizes.SMALLEST.memoryMb())) {
            wait();
        }
        return new ResourceSizes.Size(Math.max(0, cpu - usedCpu), Math.max(0, memoryMb - usedMemoryMb));
    }

    synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (running > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    synchronized int running() {
        return running;
    }
}
