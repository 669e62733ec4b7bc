package dev.gantry.server.project;

import dev.gantry.server.http.ApiException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a project's repository is, read from the {@code repo_url} of a request: a remote git URL, or a directory on
 * the server. Reading is pure: whether a local directory exists is checked by {@link Projects}.
 */
sealed interface RepoLocation {
    /** The request field this is read from. */
    String FIELD = "repo_url";
    /** The organization of a project whose repository is a local directory, unless the request names one. */
    String LOCAL_ORGANIZATION = "local";
    int MAX_LENGTH = 2048;

    /** The organization to file the project under when the request names none; empty when the URL does not say. */
    Optional<String> organization();

    /**
     * A repository git reaches over the network, like {@code https://github.com/acme/app.git} or
     * {@code git@github.com:acme/app.git}.
     *
     * @param owner the first segment of the repository path when there are at least two (GitHub's owner, GitLab's
     *              top-level group), if it is a valid organization name
     */
    record Remote(String url, Optional<String> owner) implements RepoLocation {
        @Override
        public Optional<String> organization() {
            return owner;
        }
    }

    /** A repository in a directory on the server, named by an absolute path or a {@code file://} URL. */
    record Local(Path path) implements RepoLocation {
        @Override
        public Optional<String> organization() {
            return Optional.of(LOCAL_ORGANIZATION);
        }
    }

    Set<String> SCHEMES = Set.of("https", "http", "ssh", "git", "git+ssh", "ssh+git");
    /** git's scp-like syntax, {@code [user@]host:path}, whose path does not start with a slash. */
    Pattern SCP_LIKE = Pattern.compile("(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:(?!/)(.+)");
    Pattern UNSAFE = Pattern.compile("[\\s\\p{Cntrl}]");

    /**
     * Reads {@code text}.
     *
     * @throws ApiException 400 naming {@link #FIELD} when it is neither a git URL nor an absolute path
     */
    static RepoLocation parse(String text) {
        if (text.isEmpty() || text.length() > MAX_LENGTH || UNSAFE.matcher(text).find()) {
            throw invalid(text.length() > MAX_LENGTH ? "is longer than " + MAX_LENGTH + " characters"
                    : "is empty or holds whitespace or control characters");
        }
        if (text.startsWith("/")) {
            return local(text);
        }
        if (text.startsWith("file://")) {
            URI uri = uri(text);
            if (uri.getPath() == null || !uri.getPath().startsWith("/")) {
                throw invalid("is a file:// URL without an absolute path");
            }
            return local(uri.getPath());
        }
        if (text.contains("://")) {
            URI uri = uri(text);
            if (!SCHEMES.contains(uri.getScheme().toLowerCase(Locale.ROOT)) || uri.getHost() == null) {
                throw invalid("is not a git URL git can fetch (https, http, ssh or git with a host)");
            }
            return remote(text, uri.getPath());
        }
        Matcher scp = SCP_LIKE.matcher(text);
        if (scp.matches()) {
            return remote(text, scp.group(1));
        }
        throw invalid("is neither a git URL nor an absolute path");
    }

    private static RepoLocation local(String path) {
        try {
            return new Local(Path.of(path).normalize());
        } catch (InvalidPathException e) {
            throw invalid("is not a path this server can use");
        }
    }

    private static RepoLocation remote(String url, String path) {
        List<String> segments = path == null ? List.of()
                : Arrays.stream(path.split("/")).filter(segment -> !segment.isEmpty()).toList();
        if (segments.isEmpty()) {
            throw invalid("names a host but no repository on it");
        }
        Optional<String> owner = segments.size() >= 2 && ProjectSlug.validPart(segments.get(0))
                ? Optional.of(segments.get(0)) : Optional.empty();
        return new Remote(url, owner);
    }

    private static URI uri(String text) {
        try {
            URI uri = new URI(text);
            if (uri.getScheme() == null) {
                throw invalid("has no scheme");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw invalid("is not a valid URL (" + e.getReason() + ")");
        }
    }

    private static ApiException invalid(String problem) {
        return ApiException.invalid(FIELD, "\"" + FIELD + "\" " + problem + "; give a git URL like "
                + "https://github.com/acme/app.git or git@github.com:acme/app.git, or the absolute path of a directory "
                + "on the server");
    }
}
