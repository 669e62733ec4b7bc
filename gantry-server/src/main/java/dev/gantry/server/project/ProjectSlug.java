package dev.gantry.server.project;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A project's name in the API, {@code gantry/<organization>/<name>}, as CircleCI writes {@code gh/<org>/<repo>}.
 * Both parts follow {@link #PART_RULE}, so a slug is safe in a URL path as it is. In a request path the first part may
 * also be one of CircleCI's {@link #VCS_ALIASES} ({@code gh/acme/app} is {@code gantry/acme/app}), so scripts written
 * for CircleCI work unchanged.
 */
public record ProjectSlug(String organization, String name) {
    /** The first part of every slug: the projects are Gantry's own, whatever hosts their repositories. */
    public static final String VCS = "gantry";
    /** CircleCI's VCS parts of a slug, short and long, that name the same project as {@link #VCS}. */
    public static final Set<String> VCS_ALIASES = Set.of("gh", "github", "gl", "gitlab", "bb", "bitbucket");
    public static final String PART_RULE = "1-100 letters, digits, '.', '_' or '-', and not only dots";

    private static final Pattern PART = Pattern.compile("[A-Za-z0-9._-]{1,100}");
    private static final Pattern ONLY_DOTS = Pattern.compile("\\.+");

    public ProjectSlug {
        if (!validPart(organization) || !validPart(name)) {
            throw new IllegalArgumentException("organization and name must be " + PART_RULE + ", got '"
                    + organization + "' and '" + name + "'");
        }
    }

    /** True when {@code part} may be an organization or a project name. */
    public static boolean validPart(String part) {
        // Only dots would be a path segment like '..' that clients and proxies rewrite.
        return part != null && PART.matcher(part).matches() && !ONLY_DOTS.matcher(part).matches();
    }

    /** The slug in a request path's three segments, or empty when they cannot name a project. */
    public static Optional<ProjectSlug> fromPath(String vcs, String organization, String name) {
        return (VCS.equals(vcs) || VCS_ALIASES.contains(vcs)) && validPart(organization) && validPart(name)
                ? Optional.of(new ProjectSlug(organization, name)) : Optional.empty();
    }

    /**
     * The organization's id in CircleCI's {@code circleci/<organization-id>/<project-id>} slugs: Gantry has no
     * organization table, so it is derived from the name, the same on every server.
     */
    public UUID organizationId() {
        return organizationId(organization);
    }

    /** The id {@link #organizationId()} gives the projects of {@code organization}. */
    public static UUID organizationId(String organization) {
        return UUID.nameUUIDFromBytes(("gantry-organization:" + organization).getBytes(StandardCharsets.UTF_8));
    }

    /** {@code gantry/<organization>/<name>}. */
    @Override
    public String toString() {
        return VCS + "/" + organization + "/" + name;
    }
}
