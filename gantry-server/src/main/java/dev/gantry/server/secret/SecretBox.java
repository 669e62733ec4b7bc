package dev.gantry.server.secret;

import dev.gantry.server.project.RepositoryUrls;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Envelope encryption of secret values with the JDK's AES-GCM: a value is sealed with a data key (256 bits, a fresh
 * 96-bit nonce each time, the row it belongs to as associated data, so a sealed value copied into another row does
 * not open); the data key is stored wrapped by the primary {@link MasterKeys master key}. One data key serves every
 * value until the master key changes. Unwrapped data keys are kept in memory. Thread-safe.
 */
public final class SecretBox implements RepositoryUrls.Sealer {
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Jdbi jdbi;
    private final MasterKeys masterKeys;
    private final InstantSource clock;
    private final Map<UUID, SecretKey> dataKeys = new ConcurrentHashMap<>();

    public SecretBox(Jdbi jdbi, MasterKeys masterKeys, InstantSource clock) {
        this.jdbi = jdbi;
        this.masterKeys = masterKeys;
        this.clock = clock;
    }

    /** Seals {@code value} for the row {@code context} names, in {@code h}'s transaction. */
    @Override
    public RepositoryUrls.Sealed seal(Handle h, String context, String value) {
        UUID dataKeyId = currentDataKey(h);
        return new RepositoryUrls.Sealed(dataKeyId, encrypt(dataKeys.get(dataKeyId),
                value.getBytes(StandardCharsets.UTF_8), context));
    }

    /**
     * Opens a value {@link #seal} made for {@code context}.
     *
     * @throws IllegalStateException when the data key's master key is not in the key file, or the value was not
     *                               sealed for {@code context} (or was altered)
     */
    @Override
    public String open(Handle h, String context, UUID dataKeyId, byte[] sealed) {
        SecretKey key = dataKeys.computeIfAbsent(dataKeyId, id -> unwrap(h, id));
        return new String(decrypt(key, sealed, context), StandardCharsets.UTF_8);
    }

    /**
     * Makes a new primary master key and re-wraps every data key with it in one transaction, then drops the older
     * master keys from the key file; no value is touched. Returns the new key's id and how many data keys it wraps.
     */
    public synchronized Rotation rotateMasterKey() {
        String fresh = masterKeys.addPrimary();
        int rewrapped = jdbi.inTransaction(h -> {
            DataKeyDao dao = h.attach(DataKeyDao.class);
            int count = 0;
            for (DataKeyDao.Row row : dao.lockAll()) {
                SecretKey dataKey = unwrap(row);
                dao.rewrap(row.id(), fresh, encrypt(masterKeys.primary(), dataKey.getEncoded(), wrapContext(row.id())));
                count++;
            }
            return count;
        });
        List<String> retired = masterKeys.ids().stream().filter(id -> !id.equals(fresh)).toList();
        masterKeys.retainOnly(Set.of(fresh));
        return new Rotation(fresh, rewrapped, retired);
    }

    /** What a rotation did. */
    public record Rotation(String masterKeyId, int dataKeys, List<String> retired) {
    }

    /** The data key wrapped by the primary master key, made (and stored) when there is none yet. */
    private UUID currentDataKey(Handle h) {
        DataKeyDao dao = h.attach(DataKeyDao.class);
        String primary = masterKeys.primaryId();
        for (UUID id : dao.wrappedWith(primary)) {
            dataKeys.computeIfAbsent(id, missing -> unwrap(h, missing));
            return id;
        }
        byte[] bytes = new byte[MasterKeys.KEY_BYTES];
        RANDOM.nextBytes(bytes);
        UUID id = UUID.randomUUID();
        dao.insert(id, primary, encrypt(masterKeys.primary(), bytes, wrapContext(id)),
                clock.instant().atOffset(ZoneOffset.UTC));
        dataKeys.put(id, new SecretKeySpec(bytes, "AES"));
        return id;
    }

    private SecretKey unwrap(Handle h, UUID id) {
        return unwrap(h.attach(DataKeyDao.class).find(id)
                .orElseThrow(() -> new IllegalStateException("no data key " + id)));
    }

    private SecretKey unwrap(DataKeyDao.Row row) {
        SecretKey master = masterKeys.find(row.masterKeyId()).orElseThrow(() -> new IllegalStateException(
                "data key " + row.id() + " is wrapped with master key " + row.masterKeyId() + ", which "
                        + masterKeys.file() + " does not hold"));
        return new SecretKeySpec(decrypt(master, row.wrapped(), wrapContext(row.id())), "AES");
    }

    private static String wrapContext(UUID dataKeyId) {
        return "gantry-data-key:" + dataKeyId;
    }

    private static byte[] encrypt(SecretKey key, byte[] plain, String context) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plain);
            return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    private static byte[] decrypt(SecretKey key, byte[] sealed, String context) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
            cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
            return cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a sealed value does not open for " + context
                    + ": it was sealed for another row, or altered", e);
        }
    }
}
