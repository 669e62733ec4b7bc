package dev.gantry.queue;

import java.time.Duration;

/**
 * One queue's depth right now: messages ready (due or not), running (leased) and dead (within retention), and how
 * long the oldest due message has been waiting ({@link Duration#ZERO} when none is due).
 */
public record QueueStats(String queue, long ready, long running, long dead, Duration oldestReadyAge) {
}
