package dev.gantry.server.webhook;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which repository a URL names, whatever way it is written: {@code https://github.com/Acme/App.git},
 * {@code git@github.com:acme/app}, {@code ssh://git@github.com:22/acme/app/} and
 * {@code http://github.com/acme/app} are all {@code github.com/acme/app}. Scheme, user, port, a {@code .git}
 * suffix, trailing slashes and case do not count (a forge serves one repository under its HTTP and SSH ports, and
 * GitHub, GitLab and Gitea treat owner and name case-insensitively). A local repository ({@code /srv/git/app} or
 * {@code file:///srv/git/app}) is {@code file:/srv/git/app}. Pure.
 */
final class RepoUrls {
    /** git's scp-like syntax, {@code [user@]host:path}, whose path does not start with a slash. */
    private static final Pattern SCP_LIKE = Pattern.compile("(?:[^@/\\s]+@)?([A-Za-z0-9.-]+):(?!/)(.+)");

    private RepoUrls() {
    }

    /** The repository {@code url} names, as a key that equals the key of any other way to write it; empty if none. */
    static Optional<String> key(String url) {
        if (url == null || url.isBlank()) {
            return Optional.empty();
        }
        String text = url.strip();
        if (text.startsWith("/")) {
            return local(text);
        }
        if (text.startsWith("file://")) {
            try {
                String path = new URI(text).getPath();
                return path == null ? Optional.empty() : local(path);
            } catch (URISyntaxException e) {
                return Optional.empty();
            }
        }
        if (text.contains("://")) {
            try {
                URI uri = new URI(text);
                return remote(uri.getHost(), uri.getPath());
            } catch (URISyntaxException e) {
                return Optional.empty();
            }
        }
        Matcher scp = SCP_LIKE.matcher(text);
        return scp.matches() ? remote(scp.group(1), scp.group(2)) : Optional.empty();
    }

    /** The repository's name, the last segment of its path without {@code .git}: a cheap filter for candidates. */
    static String name(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }

    private static Optional<String> remote(String host, String path) {
        if (host == null || path == null) {
            return Optional.empty();
        }
        String repository = trimmed(path);
        return repository.isEmpty() ? Optional.empty()
                : Optional.of((host + "/" + repository).toLowerCase(Locale.ROOT));
    }

    private static Optional<String> local(String path) {
        try {
            String normal = trimmed(Path.of(path).normalize().toString());
            return normal.isEmpty() ? Optional.empty() : Optional.of("file:/" + normal);
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static String trimmed(String path) {
        String p = path.replaceAll("^/+", "").replaceAll("/+$", "");
        if (p.endsWith(".git")) {
            p = p.substring(0, p.length() - ".git".length());
        }
        return p.replaceAll("/+$", "");
    }
}
