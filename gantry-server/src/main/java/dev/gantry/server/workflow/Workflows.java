package dev.gantry.server.workflow;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.PageToken;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;

/** Reads workflows and their jobs, a page at a time (keyset pages, {@link PageToken}). Thread-safe. */
public final class Workflows {
    private final Jdbi jdbi;

    /** @param jdbi with the SqlObject plugin installed */
    public Workflows(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** One page, and where the next one starts if there is one. */
    record Page<T>(List<T> items, Optional<PageToken> next) {
    }

    /** A page of a workflow's jobs, with the latest attempt of each of its job names (for dependencies). */
    record JobPage(Page<WorkflowJob> page, Map<String, UUID> latestAttempts) {
    }

    Optional<Workflow> find(UUID id) {
        return jdbi.withExtension(WorkflowDao.class, workflows -> workflows.find(id));
    }

    /**
     * The page of the pipeline's workflows after {@code after}, or the first page; empty when there is no such
     * pipeline.
     *
     * @throws ApiException 400 if {@code after} is not a token this list handed out
     */
    Optional<Page<Workflow>> ofPipeline(UUID pipelineId, Optional<String> after) {
        Optional<List<String>> from = after.map(token -> PageToken.decode(token, 3).position());
        return jdbi.withExtension(WorkflowDao.class, workflows -> {
            if (!workflows.pipelineExists(pipelineId)) {
                return Optional.empty();
            }
            int limit = PageToken.PAGE_SIZE + 1;
            List<Workflow> rows = from.isEmpty() ? workflows.firstPageOfPipeline(pipelineId, limit)
                    : workflows.pageOfPipelineAfter(pipelineId, time(from.get().get(0)).atOffset(ZoneOffset.UTC),
                            from.get().get(1), uuid(from.get().get(2)), limit);
            return Optional.of(page(rows, w -> PageToken.after(w.createdAt().toString(), w.name(), w.id().toString())));
        });
    }

    /**
     * The page of the workflow's jobs after {@code after}, or the first page.
     *
     * @throws ApiException 400 if {@code after} is not a token this list handed out
     */
    JobPage jobs(UUID workflowId, Optional<String> after) {
        long afterNumber = after.map(token -> number(PageToken.decode(token, 1).position().getFirst())).orElse(0L);
        return jdbi.withExtension(WorkflowDao.class, workflows -> new JobPage(
                page(workflows.jobsAfter(workflowId, afterNumber, PageToken.PAGE_SIZE + 1),
                        job -> PageToken.after(Long.toString(job.number()))),
                workflows.latestAttempts(workflowId)));
    }

    private static <T> Page<T> page(List<T> rows, Function<T, PageToken> tokenAfter) {
        if (rows.size() <= PageToken.PAGE_SIZE) {
            return new Page<>(List.copyOf(rows), Optional.empty());
        }
        List<T> page = List.copyOf(rows.subList(0, PageToken.PAGE_SIZE));
        return new Page<>(page, Optional.of(tokenAfter.apply(page.getLast())));
    }

    private static Instant time(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw notOurs();
        }
    }

    private static UUID uuid(String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            throw notOurs();
        }
    }

    private static long number(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw notOurs();
        }
    }

    private static ApiException notOurs() {
        return ApiException.invalid(PageToken.PARAMETER, "\"" + PageToken.PARAMETER + "\" does not point into this "
                + "list; use the next_page_token of the previous page");
    }
}
