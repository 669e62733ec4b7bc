package dev.gantry.server.auth;

import dev.gantry.server.http.ApiException;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.function.Function;

/**
 * What each route asks of its caller, checked before the route runs ({@link ApiRoutes} registers no route without a
 * rule). Roles are per organization ({@link Role}); a site admin is an admin everywhere. A caller without the role gets
 * 403 naming the organization and the role needed. Stateless.
 */
public final class Access {
    static final String ORGANIZATION = "gantry.organization";

    private Access() {
    }

    /** What a route asks. */
    public sealed interface Rule {
        /** A few words for the route table and the role matrix test. */
        String describe();
    }

    /** No token: the route checks a credential of its own (a continuation key). */
    public record Open() implements Rule {
        @Override
        public String describe() {
            return "its own credential";
        }
    }

    /** Any user with a valid token; what they see is limited to their organizations by the route itself. */
    public record SignedIn() implements Rule {
        @Override
        public String describe() {
            return "any user";
        }
    }

    /** Only a site admin: the server's queues, fleet, users and keys. */
    public record SiteAdmin() implements Rule {
        @Override
        public String describe() {
            return "a site admin";
        }
    }

    /** The user the path parameter {@code login} names, or a site admin: a user's own tokens. */
    public record Self(String login) implements Rule {
        @Override
        public String describe() {
            return "the user themself, or a site admin";
        }
    }

    /**
     * At least {@code least} in the organization {@code organization} finds from the request (the project's in its
     * path, a pipeline's by its id, …); when it finds none the thing does not exist and the route answers 404.
     */
    public record InOrganization(Role least, Function<Context, Optional<String>> organization) implements Rule {
        @Override
        public String describe() {
            return least.word() + " of the organization";
        }
    }

    public static final Rule OPEN = new Open();
    public static final Rule SIGNED_IN = new SignedIn();
    public static final Rule SITE_ADMIN = new SiteAdmin();

    /** @throws ApiException 403 when the caller does not meet {@code rule} */
    static void check(Context ctx, Rule rule) {
        switch (rule) {
            case Open open -> {
            }
            case SignedIn signedIn -> ApiAuthentication.principal(ctx);
            case SiteAdmin siteAdmin -> {
                Principal caller = ApiAuthentication.principal(ctx);
                if (!caller.siteAdmin()) {
                    throw ApiException.forbidden(caller.login() + " is not a site admin, which "
                            + ctx.method() + " " + ctx.path() + " needs");
                }
            }
            case Self self -> {
                Principal caller = ApiAuthentication.principal(ctx);
                if (!caller.siteAdmin() && !caller.login().equals(ctx.pathParam(self.login()))) {
                    throw ApiException.forbidden(caller.login() + " may manage only their own tokens");
                }
            }
            case InOrganization in -> in.organization().apply(ctx).ifPresent(org -> require(ctx, org, in.least()));
        }
    }

    /**
     * Lets the caller on only with at least {@code least} in {@code organization}, for routes whose organization is
     * known only inside the handler (a project being created); notes the organization for the audit log.
     *
     * @throws ApiException 403 otherwise
     */
    public static void require(Context ctx, String organization, Role least) {
        ctx.attribute(ORGANIZATION, organization);
        Principal caller = ApiAuthentication.principal(ctx);
        Optional<Role> role = caller.roleIn(organization);
        if (role.isEmpty() || !role.get().atLeast(least)) {
            throw ApiException.forbidden(caller.login() + (role.isEmpty() ? " is not a member of organization "
                    + organization : " is a " + role.get().word() + " of organization " + organization)
                    + "; this needs a " + least.word() + " or more");
        }
    }
}
