package dev.gantry.server.storage;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/** Where each kind of blob lives in a {@link BlobStore}: the one place that names them, for writers and readers. */
public final class BlobLayout {
    private BlobLayout() {
    }

    /** {@code artifacts/<job>/<node>/<path>}. */
    public static BlobName artifact(UUID jobId, int nodeIndex, BlobName path) {
        return BlobName.of("artifacts", jobId.toString(), Integer.toString(nodeIndex)).then(path);
    }

    /** {@code caches/<project>/<sha256 of the key>.tar.gz}: keys are any text, so they are hashed into a name. */
    public static BlobName cache(UUID projectId, String key) {
        try {
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
            return BlobName.of("caches", projectId.toString(), hash + ".tar.gz");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** {@code workspaces/<workflow>/<layer>.tar.gz}. */
    public static BlobName workspaceLayer(UUID workflowId, UUID layerId) {
        return BlobName.of("workspaces", workflowId.toString(), layerId + ".tar.gz");
    }
}
