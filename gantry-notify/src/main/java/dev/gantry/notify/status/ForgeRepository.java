package dev.gantry.notify.status;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The repository a project's URL names on its forge, and where that forge's API is: {@code github.com} answers at
 * {@code https://api.github.com}, {@code gitlab.com} at {@code https://gitlab.com/api/v4}, and a self-hosted forge
 * under its web root ({@code /api/v3} for GitHub Enterprise, {@code /api/v4} for GitLab, {@code /api/v1} for Gitea).
 * SSH and scp-like URLs ({@code git@host:owner/repo.git}) mean the forge's HTTPS web root. Pure, immutable.
 *
 * @param path the repository's path without {@code .git}: {@code owner/repo}, or GitLab's {@code group/sub/repo}
 */
public record ForgeRepository(Forge forge, URI api, String path) {
    private static final Pattern SCP_LIKE = Pattern.compile("(?:[^@/\\s]+@)?([A-Za-z0-9.-]+):(?!/)(.+)");

    /**
     * Reads {@code repositoryUrl}; {@code forge} may be null when the host says it (github.com, gitlab.com), and
     * {@code api} null for the forge's usual place.
     *
     * @return the repository, or empty with why not in {@code problem}
     */
    public static Optional<ForgeRepository> of(String repositoryUrl, Forge forge, URI api, StringBuilder problem) {
        URI web = webRoot(repositoryUrl);
        if (web == null) {
            problem.append("the project's repository URL ").append(repositoryUrl)
                    .append(" names no repository on a forge (an https:// or SSH URL)");
            return Optional.empty();
        }
        String host = web.getHost().toLowerCase(Locale.ROOT);
        Forge named = forge != null ? forge : host.equals("github.com") ? Forge.GITHUB
                : host.equals("gitlab.com") ? Forge.GITLAB : null;
        if (named == null) {
            problem.append("say which forge serves ").append(host).append(": \"forge\" is github, gitlab or gitea");
            return Optional.empty();
        }
        String path = web.getPath().replaceAll("^/+|/+$", "").replaceAll("\\.git$", "");
        if (path.split("/").length < 2) {
            problem.append("the repository URL ").append(repositoryUrl).append(" names no owner/repository");
            return Optional.empty();
        }
        URI root = URI.create(web.getScheme() + "://" + web.getRawAuthority());
        URI where = api != null ? api : named == Forge.GITHUB && host.equals("github.com")
                ? URI.create("https://api.github.com") : URI.create(root + named.apiPrefix());
        return Optional.of(new ForgeRepository(named, where, path));
    }

    /** The https (or http) URL of the repository's web page; null when the URL is no forge's. */
    private static URI webRoot(String url) {
        Matcher scp = SCP_LIKE.matcher(url);
        if (!url.contains("://") && scp.matches()) {
            return URI.create("https://" + scp.group(1) + "/" + scp.group(2));
        }
        try {
            URI uri = new URI(url);
            if (uri.getHost() == null || uri.getScheme() == null) {
                return null;
            }
            String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            if (scheme.equals("ssh") || scheme.equals("git")) {
                return URI.create("https://" + uri.getHost() + uri.getRawPath());
            }
            if (!scheme.equals("https") && !scheme.equals("http")) {
                return null;
            }
            return new URI(scheme, null, uri.getHost(), uri.getPort(), uri.getPath(), null, null);
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
