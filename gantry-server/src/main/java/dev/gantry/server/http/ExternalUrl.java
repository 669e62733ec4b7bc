package dev.gantry.server.http;

import java.net.URI;
import java.util.Objects;

/**
 * Where clients reach the server, which every absolute URL in an answer starts with ({@code web_url}, artifact
 * {@code url}s): the configured external URL ({@code GANTRY_EXTERNAL_URL}) or, without one, the URL the server
 * listens on. Never the request's {@code Host} header, which the client (or anyone in front of the server) chooses:
 * a link built from it could point a reader of the answer at another host. Thread-safe.
 */
public final class ExternalUrl {
    private final boolean configured;
    private volatile String base;

    private ExternalUrl(URI base, boolean configured) {
        this.configured = configured;
        this.base = base == null ? null : withoutTrailingSlash(base);
    }

    /** The configured external URL {@code url}; a path in it (a proxy's prefix) comes before the API's paths. */
    public static ExternalUrl configured(URI url) {
        return new ExternalUrl(Objects.requireNonNull(url, "url"), true);
    }

    /** No external URL configured: the one the server listens on, told by {@link #listening} once it is known. */
    public static ExternalUrl local() {
        return new ExternalUrl(null, false);
    }

    /**
     * Tells where the server listens, once it does (the port may have been 0): the base unless an external URL is
     * configured.
     */
    public void listening(URI local) {
        if (!configured) {
            base = withoutTrailingSlash(local);
        }
    }

    /** The absolute URL of {@code path} (starting with {@code /}, already percent-encoded) on the server. */
    public String of(String path) {
        String at = base;
        if (at == null) {
            throw new IllegalStateException("the server's URL is asked for before it listens");
        }
        return at + path;
    }

    private static String withoutTrailingSlash(URI url) {
        String text = url.toString();
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == '/') {
            end--;
        }
        return text.substring(0, end);
    }
}
