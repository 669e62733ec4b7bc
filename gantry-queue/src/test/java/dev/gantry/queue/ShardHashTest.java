package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The routing function is a storage format: these values must never change. */
class ShardHashTest {

    @ParameterizedTest(name = "\"{0}\" routes to {1} of 2, {2} of 3, {3} of 8, {4} of 100")
    @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
            ''                    | 0 | 0 | 0 | 0
            gantry                | 0 | 0 | 0 | 10
            project-1             | 0 | 2 | 6 | 68
            project-2             | 1 | 1 | 1 | 9
            github/acme/widgets   | 0 | 0 | 0 | 90
            gitlab/ünïcødé/ø      | 1 | 2 | 7 | 7
            a                     | 1 | 1 | 4 | 84
            """)
    void keys_route_to_the_same_shards_in_every_release(String key, int of2, int of3, int of8, int of100) {
        assertThat(ShardHash.shardOf(key, 1)).isZero();
        assertThat(ShardHash.shardOf(key, 2)).isEqualTo(of2);
        assertThat(ShardHash.shardOf(key, 3)).isEqualTo(of3);
        assertThat(ShardHash.shardOf(key, 8)).isEqualTo(of8);
        assertThat(ShardHash.shardOf(key, 100)).isEqualTo(of100);
    }

    @Test
    void the_checksum_is_the_standard_crc32_of_the_utf8_bytes() {
        CRC32 crc = new CRC32();
        crc.update("123456789".getBytes(StandardCharsets.US_ASCII));
        assertThat(crc.getValue()).as("the CRC-32 check value").isEqualTo(0xCBF43926L);
    }

    @Test
    void the_jump_hash_matches_the_published_algorithm() {
        // Values computed by other implementations of the paper's C++ code.
        assertThat(ShardHash.jump(10863919174838991L, 11)).isEqualTo(6);
        assertThat(ShardHash.jump(2016238256797177309L, 11)).isEqualTo(3);
    }

    @Test
    void keys_spread_evenly_over_the_shards() {
        int[] counts = new int[4];
        for (int i = 0; i < 40_000; i++) {
            counts[ShardHash.shardOf("project-" + i, 4)]++;
        }
        for (int c : counts) {
            assertThat(c).isBetween(9_000, 11_000);
        }
    }

    @Test
    void adding_a_shard_moves_keys_only_to_the_new_shard_and_only_a_fair_share_of_them() {
        int moved = 0;
        for (int i = 0; i < 10_000; i++) {
            String key = "project-" + i;
            int before = ShardHash.shardOf(key, 4);
            int after = ShardHash.shardOf(key, 5);
            if (before != after) {
                assertThat(after).as("where %s moved", key).isEqualTo(4);
                moved++;
            }
        }
        assertThat(moved).isBetween(1_700, 2_300);
    }

    @Test
    void no_shards_and_null_keys_are_refused() {
        assertThatThrownBy(() -> ShardHash.shardOf("a", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ShardHash.shardOf(null, 2)).isInstanceOf(IllegalArgumentException.class);
    }
}
