package dev.gantry.server.project;

import dev.gantry.notify.http.AddressRule;
import java.net.InetAddress;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;

/**
 * Which repositories the server fetches from, so that a project cannot make it read its own disk or probe the
 * networks it sits in (a {@code repo_url} of {@code file:///etc}, {@code http://127.0.0.1:5432} or the cloud metadata
 * address {@code 169.254.169.254}). By default only {@code https://}, {@code ssh://} (and git's scp form) and
 * {@code git://} URLs whose host is on a public address; an admin allows directories on the server
 * ({@code GANTRY_ALLOW_LOCAL_REPOSITORIES}, {@code --allow-local-repositories}) and hosts on loopback, link-local or
 * private networks, with plain {@code http://} ({@code GANTRY_ALLOW_PRIVATE_NETWORKS},
 * {@code --allow-private-networks}). A host name is resolved when the project is made and again before each fetch; one
 * that does not resolve is let through (git will fail on it), one that resolves to any forbidden address is refused.
 *
 * @param localRepositories directories on the server may be repositories
 * @param privateNetworks   hosts on loopback, link-local and private networks, and http, may be fetched from
 */
public record RepositoryPolicy(boolean localRepositories, boolean privateNetworks) {
    public static final String LOCAL_VARIABLE = "GANTRY_ALLOW_LOCAL_REPOSITORIES";
    public static final String PRIVATE_VARIABLE = AddressRule.PRIVATE_VARIABLE;
    /** Public git hosts only: what a server starts with. */
    public static final RepositoryPolicy PUBLIC_ONLY = new RepositoryPolicy(false, false);
    /** Anything git can fetch: for a single-user server on a workstation ({@code gantry up}) and tests. */
    public static final RepositoryPolicy ANYTHING = new RepositoryPolicy(true, true);

    /**
     * Why {@code location} may not be used, or empty when it may; {@code resolve} gives a host's addresses (empty
     * when it does not resolve). The reason never says what the host resolved to.
     */
    Optional<String> refusal(RepoLocation location, Function<String, InetAddress[]> resolve) {
        return switch (location) {
            case RepoLocation.Local local -> localRepositories ? Optional.empty() : Optional.of(
                    "names a directory on the server, which this server does not fetch from (an admin allows it with "
                            + "--allow-local-repositories); give an https://, ssh:// or git:// URL");
            case RepoLocation.Remote remote -> remoteRefusal(remote.url(), resolve);
        };
    }

    /** {@link #refusal} with the system's resolver. */
    Optional<String> refusal(RepoLocation location) {
        return refusal(location, AddressRule::resolve);
    }

    /** {@link #refusal} of a project's stored {@code vcs_url}, as a fetch checks it again. */
    public Optional<String> refusal(String repoUrl) {
        return refusal(RepoLocation.parse(repoUrl), AddressRule::resolve);
    }

    private Optional<String> remoteRefusal(String url, Function<String, InetAddress[]> resolve) {
        String host;
        Matcher scp = RepoLocation.SCP_LIKE.matcher(url);
        if (url.contains("://")) {
            URI uri = URI.create(url);
            String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
            if (scheme.equals("http") && !privateNetworks) {
                return Optional.of("is a plain http:// URL, which this server does not fetch from (an admin allows "
                        + "it with --allow-private-networks); use https://");
            }
            host = uri.getHost();
        } else if (scp.matches()) {
            String authority = url.substring(0, url.indexOf(':'));
            host = authority.substring(authority.indexOf('@') + 1);
        } else {
            return Optional.of("is not a git URL this server fetches from");
        }
        return new AddressRule(privateNetworks).allows(host, resolve) ? Optional.empty() : Optional.of("names a host "
                + "on a loopback, link-local or private network, which this server does not fetch from (an admin "
                + "allows it with --allow-private-networks)");
    }

    /** {@code url} without the user and password of {@code scheme://user:password@host/…}, for logs and answers. */
    public static String withoutCredentials(String url) {
        return url.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", "$1");
    }
}
