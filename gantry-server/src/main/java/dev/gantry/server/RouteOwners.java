package dev.gantry.server;

import dev.gantry.server.project.ProjectRoutes;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;

/**
 * The organization a request acts in, found from its path: the project slug's, or the owner of the pipeline,
 * workflow, schedule or context its id names. Empty when the id names nothing (the route then answers 404). For
 * {@link dev.gantry.server.auth.Access.InOrganization} rules. Thread-safe.
 */
final class RouteOwners {
    private final Jdbi jdbi;

    RouteOwners(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** The organization of {@code /project/{vcs}/{org}/{name}/…} (or of {@code circleci/ORG-ID/PROJECT-ID}). */
    Function<Context, Optional<String>> project() {
        return ctx -> Optional.of(ProjectRoutes.slugOf(ctx).organization());
    }

    /** The path parameter {@code name} itself: {@code /organization/{org}/…}, an orb's namespace. */
    static Function<Context, Optional<String>> named(String name) {
        return ctx -> Optional.of(ctx.pathParam(name));
    }

    Function<Context, Optional<String>> pipeline() {
        return byId("""
                SELECT pr.organization FROM gantry.pipeline p JOIN gantry.project pr ON pr.id = p.project_id
                WHERE p.id = :id""");
    }

    Function<Context, Optional<String>> workflow() {
        return byId("""
                SELECT pr.organization FROM gantry.workflow w JOIN gantry.pipeline p ON p.id = w.pipeline_id
                JOIN gantry.project pr ON pr.id = p.project_id WHERE w.id = :id""");
    }

    Function<Context, Optional<String>> schedule() {
        return byId("""
                SELECT pr.organization FROM gantry.schedule s JOIN gantry.project pr ON pr.id = s.project_id
                WHERE s.id = :id""");
    }

    Function<Context, Optional<String>> context() {
        return byId("SELECT organization FROM gantry.context WHERE id = :id");
    }

    private Function<Context, Optional<String>> byId(String sql) {
        return ctx -> {
            UUID id;
            try {
                id = UUID.fromString(ctx.pathParam("id"));
            } catch (IllegalArgumentException notAnId) {
                return Optional.empty(); // the route says what is wrong with it
            }
            return jdbi.withHandle(h -> h.createQuery(sql).bind("id", id).mapTo(String.class).findOne());
        };
    }
}
