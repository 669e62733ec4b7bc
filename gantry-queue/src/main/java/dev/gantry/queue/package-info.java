/**
 * A durable queue on PostgreSQL that cannot rot: messages enqueued in the caller's transaction, claimed in batches with
 * {@code FOR UPDATE SKIP LOCKED} under leases fenced by attempt numbers, retried with capped, fully jittered backoff,
 * dead-lettered with a reason and replayable. Storage is partitioned by epoch; maintenance moves unfinished messages
 * forward, detaches old partitions and drops them whole, so cleanup never deletes rows one by one.
 *
 * <p>Entry point: {@link dev.gantry.queue.Queues}, or {@link dev.gantry.queue.Shards} for several independent databases
 * with work routed by a key. Thread-safe. Database failures surface as
 * {@link dev.gantry.queue.QueueUnavailableException} (try later) or {@link dev.gantry.queue.QueueException}.
 */
package dev.gantry.queue;
