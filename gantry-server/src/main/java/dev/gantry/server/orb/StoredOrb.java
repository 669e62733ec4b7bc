package dev.gantry.server.orb;

import java.time.Instant;
import java.time.OffsetDateTime;

/** One orb version as stored: its packed source, that source's SHA-256, where it came from and when. */
public record StoredOrb(String namespace, String name, String version, String source, byte[] sha256, String origin,
                        OffsetDateTime createdAt, OffsetDateTime updatedAt) {

    /** {@code namespace/name}, as configs write it before the {@code @}. */
    public String fullName() {
        return namespace + "/" + name;
    }

    public Instant created() {
        return createdAt.toInstant();
    }
}
