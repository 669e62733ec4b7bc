package dev.gantry.queue;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Which shard a routing key belongs to: {@code jump(crc32(utf8(key)), shards)}, where {@code crc32} is the IEEE 802.3
 * CRC-32 of the key's UTF-8 bytes ({@link CRC32}, the checksum of zip and PNG) taken as an unsigned 32-bit number, and
 * {@code jump} is the jump consistent hash of Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm"
 * (2014), exactly as published.
 *
 * <p>This is a storage format, not an implementation detail: every message and every row a project owns lives on the
 * shard this function names, so it must give the same answer in every release and in every language that routes
 * (golden values in {@code ShardHashTest} pin it). Both halves are fixed by public specifications. The number of
 * shards is fixed per deployment for now: changing it moves keys. Jump hashing keeps that move small for the day it
 * is needed: going from n to n + 1 shards moves only about 1/(n + 1) of the keys, all of them to the new shard.
 */
public final class ShardHash {
    // The 64-bit linear congruential generator of the paper.
    private static final long LCG_MULTIPLIER = 2862933555777941757L;

    private ShardHash() {
    }

    /** The shard of {@code key} among {@code shards}, in {@code [0, shards)}. */
    public static int shardOf(String key, int shards) {
        if (key == null) {
            throw new IllegalArgumentException("a routing key must not be null");
        }
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return jump(crc.getValue(), shards);
    }

    /** Jump consistent hash; {@code key} is read as unsigned, as in the paper's C++. */
    static int jump(long key, int buckets) {
        if (buckets < 1) {
            throw new IllegalArgumentException("the number of shards must be at least 1, got " + buckets);
        }
        long b = -1;
        long j = 0;
        while (j < buckets) {
            b = j;
            key = key * LCG_MULTIPLIER + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }
}
