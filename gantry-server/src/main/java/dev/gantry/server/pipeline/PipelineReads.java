package dev.gantry.server.pipeline;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.PageToken;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectDao;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The read side of pipelines beyond one by id: a project's pipelines page by page, one by its number, and the config a
 * pipeline ran. Pages are keyset pages on the pipeline number (newest first), so a pipeline triggered meanwhile shifts
 * nothing. Thread-safe.
 */
final class PipelineReads {
    private final Jdbi jdbi;

    PipelineReads(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** One page of pipelines, and where the next one starts if there is one. */
    record Page(List<PipelineView> items, Optional<PageToken> next) {
    }

    /**
     * The project's pipelines, newest first, {@link PageToken#PAGE_SIZE} a page, after the page {@code token} ended.
     *
     * @param branch only pipelines on this branch, if not null
     * @param actor  only pipelines this login triggered (through the API or a schedule), if not null
     * @throws ApiException 404 for an unknown project, 400 for a token this list did not hand out
     */
    Page list(ProjectSlug slug, String branch, String actor, Optional<String> token) {
        long before = token.map(PipelineReads::position).orElse(Long.MAX_VALUE);
        return jdbi.inTransaction(h -> {
            Project project = project(h, slug);
            int limit = PageToken.PAGE_SIZE + 1; // one more tells whether a next page exists
            List<PipelineView> rows = h.attach(PipelineDao.class).pageOfProject(project.id(), before, branch, actor,
                    limit);
            if (rows.size() <= PageToken.PAGE_SIZE) {
                return new Page(List.copyOf(rows), Optional.empty());
            }
            List<PipelineView> page = List.copyOf(rows.subList(0, PageToken.PAGE_SIZE));
            return new Page(page, Optional.of(PageToken.after(Long.toString(
                    page.getLast().pipeline().number()))));
        });
    }

    /**
     * The project's pipeline {@code number}.
     *
     * @throws ApiException 404 for an unknown project or pipeline
     */
    PipelineView byNumber(ProjectSlug slug, long number) {
        return jdbi.inTransaction(h -> h.attach(PipelineDao.class).findViewByNumber(project(h, slug).id(), number))
                .orElseThrow(() -> ApiException.notFound("no pipeline " + number + " in project " + slug));
    }

    /** The config a pipeline ran, and its orbs. */
    record Config(PipelineDao.StoredConfig stored, List<PipelineDao.PipelineOrb> orbs) {
    }

    /**
     * The config pipeline {@code id} ran, as read and compiled, all null before the plan builder stored it (a pending
     * pipeline, or one that errored before its config compiled), with the orb versions it compiled with.
     *
     * @return empty for an unknown pipeline
     */
    Optional<Config> config(UUID id) {
        return jdbi.inTransaction(h -> {
            PipelineDao pipelines = h.attach(PipelineDao.class);
            if (pipelines.find(id).isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Config(pipelines.config(id).orElse(new PipelineDao.StoredConfig(null, null, null,
                    null)), pipelines.orbs(id)));
        });
    }

    private static Project project(Handle h, ProjectSlug slug) {
        return h.attach(ProjectDao.class).find(slug.organization(), slug.name())
                .orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
    }

    private static long position(String token) {
        String number = PageToken.decode(token, 1).position().getFirst();
        try {
            long value = Long.parseLong(number);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException notOurs) {
            // reported below
        }
        throw ApiException.invalid(PageToken.PARAMETER, "\"" + PageToken.PARAMETER + "\" does not point into the "
                + "list of pipelines; use the next_page_token of the previous page");
    }
}
