package dev.gantry.server.project;

import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;

/**
 * Keeps the credentials of a {@code repo_url} ({@code https://user:token@host/…}) out of the project's stored URL:
 * {@link #split} parts them from it, the {@link Sealer} seals them (envelope encryption, as secrets are), and
 * {@link #fetchable} puts them back for the git fetches and checkouts that need them. Thread-safe.
 */
public final class RepositoryUrls {
    /** Seals and opens short values bound to a context, as {@code dev.gantry.server.secret.SecretBox} does. */
    public interface Sealer {
        /** The data key's id and the sealed bytes of {@code value}, for the row {@code context} names. */
        Sealed seal(Handle h, String context, String value);

        String open(Handle h, String context, UUID dataKeyId, byte[] sealed);
    }

    /** What {@link Sealer#seal} gives. */
    public record Sealed(UUID dataKeyId, byte[] bytes) {
    }

    /** A URL without its credentials, and the credentials ({@code user:password}), null when it had none. */
    record Split(String url, String credentials) {
    }

    private static final Pattern CREDENTIALS = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://)([^/@]*)@(.*)$",
            Pattern.DOTALL);

    private final Sealer sealer;

    public RepositoryUrls(Sealer sealer) {
        this.sealer = sealer;
    }

    static Split split(String url) {
        Matcher m = CREDENTIALS.matcher(url);
        return m.matches() ? new Split(m.group(1) + m.group(3), m.group(2)) : new Split(url, null);
    }

    /** Seals {@code credentials} for project {@code projectId}. */
    Sealed seal(Handle h, UUID projectId, String credentials) {
        return sealer.seal(h, context(projectId), credentials);
    }

    /** The URL git fetches project {@code projectId} from: its stored URL with its credentials, if it has any. */
    public String fetchable(Handle h, UUID projectId, String storedUrl) {
        return h.createQuery("""
                        SELECT vcs_credentials, vcs_credentials_key FROM gantry.project WHERE id = :id
                        AND vcs_credentials IS NOT NULL""").bind("id", projectId)
                .map((rs, c) -> new Sealed(rs.getObject("vcs_credentials_key", UUID.class),
                        rs.getBytes("vcs_credentials")))
                .findOne().map(sealed -> {
                    String credentials = sealer.open(h, context(projectId), sealed.dataKeyId(), sealed.bytes());
                    int scheme = storedUrl.indexOf("://") + 3;
                    return storedUrl.substring(0, scheme) + credentials + "@" + storedUrl.substring(scheme);
                }).orElse(storedUrl);
    }

    private static String context(UUID projectId) {
        return "project-vcs-credentials:" + projectId;
    }
}
