package dev.gantry.server.secret;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.project.Project;
import dev.gantry.server.project.ProjectDao;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.project.RepositoryUrls;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Project environment variables and contexts: stored sealed by {@link SecretBox}, listed without their values (a
 * project variable shows a hint such as {@code xxxx4711}, a context variable nothing), and opened only for the jobs
 * that get them ({@link #forJob}). Thread-safe.
 */
public final class Secrets {
    /** The shortest value job output can mask: shorter ones would mask ordinary words and digits. */
    public static final int SHORTEST_MASKED = 4;
    static final int MAX_VALUE_BYTES = 64 * 1024;
    static final String NAME_RULE = "a letter or '_', then letters, digits or '_', at most 256 characters";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,255}");
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final Jdbi jdbi;
    private final SecretBox box;
    private final InstantSource clock;

    public Secrets(Jdbi jdbi, SecretBox box, InstantSource clock) {
        this.jdbi = jdbi;
        this.box = box;
        this.clock = clock;
    }

    // --- project environment variables ------------------------------------------------------------------------

    /** Creates or replaces {@code name} of the project. */
    public SecretDao.ProjectVar putProjectVar(ProjectSlug slug, String name, String value) {
        checkName(name);
        checkValue(value);
        return jdbi.inTransaction(h -> {
            UUID projectId = project(h, slug).id();
            RepositoryUrls.Sealed sealed = box.seal(h, projectContext(projectId, name), value);
            h.attach(SecretDao.class).putProjectVar(projectId, name, sealed.dataKeyId(), sealed.bytes(), hint(value),
                    masked(value), now());
            return h.attach(SecretDao.class).projectVar(projectId, name).orElseThrow();
        });
    }

    public List<SecretDao.ProjectVar> projectVars(ProjectSlug slug) {
        return jdbi.withHandle(h -> h.attach(SecretDao.class).projectVars(project(h, slug).id()));
    }

    /** @throws ApiException 404 for a project or variable that does not exist */
    public SecretDao.ProjectVar projectVar(ProjectSlug slug, String name) {
        return jdbi.withHandle(h -> h.attach(SecretDao.class).projectVar(project(h, slug).id(), name))
                .orElseThrow(() -> ApiException.notFound("project " + slug + " has no environment variable "
                        + ApiException.quote(name)));
    }

    /** @throws ApiException 404 for a project or variable that does not exist */
    public void deleteProjectVar(ProjectSlug slug, String name) {
        if (!jdbi.inTransaction(h -> h.attach(SecretDao.class).deleteProjectVar(project(h, slug).id(), name))) {
            throw ApiException.notFound("project " + slug + " has no environment variable "
                    + ApiException.quote(name));
        }
    }

    // --- contexts ---------------------------------------------------------------------------------------------

    /** @throws ApiException 409 when the organization has a context of that name */
    public SecretDao.Context createContext(String organization, String name) {
        if (name == null || name.isBlank() || name.length() > 200) {
            throw ApiException.invalid("name", "a context's \"name\" is 1-200 characters");
        }
        UUID id = UUID.randomUUID();
        return jdbi.inTransaction(h -> {
            SecretDao dao = h.attach(SecretDao.class);
            if (!dao.insertContext(id, organization, name, now())) {
                throw ApiException.conflict("organization " + organization + " already has a context named "
                        + ApiException.quote(name));
            }
            return dao.context(id).orElseThrow();
        });
    }

    public List<SecretDao.Context> contexts(String organization) {
        return jdbi.withHandle(h -> h.attach(SecretDao.class).contexts(organization));
    }

    /** @throws ApiException 404 for a context that does not exist */
    public SecretDao.Context context(UUID id) {
        return jdbi.withHandle(h -> h.attach(SecretDao.class).context(id))
                .orElseThrow(() -> unknownContext(id));
    }

    /** @throws ApiException 404 for a context that does not exist */
    public void deleteContext(UUID id) {
        if (!jdbi.inTransaction(h -> h.attach(SecretDao.class).deleteContext(id))) {
            throw unknownContext(id);
        }
    }

    /** The organization whose {@link ProjectSlug#organizationId} is {@code id}, among those with projects or contexts. */
    public String organizationWithId(UUID id) {
        return jdbi.withHandle(h -> h.attach(SecretDao.class).organizations()).stream()
                .filter(o -> ProjectSlug.organizationId(o).equals(id)).findFirst()
                .orElseThrow(() -> ApiException.notFound("no organization " + id));
    }

    /** Creates or replaces {@code name} of the context. */
    public SecretDao.ContextVar putContextVar(UUID contextId, String name, String value) {
        checkName(name);
        checkValue(value);
        return jdbi.inTransaction(h -> {
            SecretDao dao = h.attach(SecretDao.class);
            dao.context(contextId).orElseThrow(() -> unknownContext(contextId));
            RepositoryUrls.Sealed sealed = box.seal(h, contextContext(contextId, name), value);
            dao.putContextVar(contextId, name, sealed.dataKeyId(), sealed.bytes(), masked(value), now());
            return dao.contextVar(contextId, name).orElseThrow();
        });
    }

    /** @throws ApiException 404 for a context that does not exist */
    public List<SecretDao.ContextVar> contextVars(UUID contextId) {
        return jdbi.withHandle(h -> {
            SecretDao dao = h.attach(SecretDao.class);
            dao.context(contextId).orElseThrow(() -> unknownContext(contextId));
            return dao.contextVars(contextId);
        });
    }

    /** @throws ApiException 404 for a context or variable that does not exist */
    public void deleteContextVar(UUID contextId, String name) {
        if (!jdbi.inTransaction(h -> h.attach(SecretDao.class).deleteContextVar(contextId, name))) {
            throw ApiException.notFound("context " + contextId + " has no environment variable "
                    + ApiException.quote(name));
        }
    }

    /** Restricts the context to members of {@code group} (of its organization). */
    public SecretDao.Restriction restrict(UUID contextId, String group) {
        if (group == null || !GROUP.matcher(group).matches()) {
            throw ApiException.invalid("restriction_value", "a group's name is 1-64 letters, digits, '.', '_' or '-'");
        }
        return jdbi.inTransaction(h -> {
            SecretDao dao = h.attach(SecretDao.class);
            dao.context(contextId).orElseThrow(() -> unknownContext(contextId));
            dao.insertRestriction(UUID.randomUUID(), contextId, group, now());
            return dao.restrictions(contextId).stream().filter(r -> r.groupName().equals(group)).findFirst()
                    .orElseThrow();
        });
    }

    public List<SecretDao.Restriction> restrictions(UUID contextId) {
        return jdbi.withHandle(h -> {
            SecretDao dao = h.attach(SecretDao.class);
            dao.context(contextId).orElseThrow(() -> unknownContext(contextId));
            return dao.restrictions(contextId);
        });
    }

    /** @throws ApiException 404 for a restriction the context does not have */
    public void unrestrict(UUID contextId, UUID restrictionId) {
        if (!jdbi.withHandle(h -> h.attach(SecretDao.class).deleteRestriction(contextId, restrictionId))) {
            throw ApiException.notFound("context " + contextId + " has no restriction " + restrictionId);
        }
    }

    // --- for jobs ---------------------------------------------------------------------------------------------

    /** What a job gets: its variables in precedence order, or why it may not run. */
    public sealed interface ForJob {
        record Granted(Map<String, String> variables) implements ForJob {
        }

        record Refused(String reason) implements ForJob {
        }
    }

    /**
     * The project's variables, then those of {@code contexts} in the order the job names them (a later one wins a
     * name they share), opened in {@code h}'s transaction; refused, naming it, when a context does not exist in the
     * project's organization, or is restricted to groups the pipeline's {@code actor} is in none of.
     */
    public ForJob forJob(Handle h, UUID projectId, String organization, List<String> contexts, String actor) {
        SecretDao dao = h.attach(SecretDao.class);
        Map<String, String> variables = new LinkedHashMap<>();
        for (SecretDao.SealedVar v : dao.sealedProjectVars(projectId)) {
            variables.put(v.name(), box.open(h, projectContext(projectId, v.name()), v.dataKeyId(), v.sealed()));
        }
        if (contexts.isEmpty()) {
            return new ForJob.Granted(variables);
        }
        Map<String, UUID> found = new LinkedHashMap<>();
        dao.contextsNamed(organization, contexts).forEach(c -> found.put(c.name(), c.id()));
        for (String name : contexts) {
            UUID contextId = found.get(name);
            if (contextId == null) {
                return new ForJob.Refused("The job names context '" + name + "', which organization " + organization
                        + " does not have: create it (POST /api/v2/context) or remove it from the job's context list.");
            }
            if (!dao.restrictions(contextId).isEmpty() && !dao.inRestrictedGroup(contextId, organization, actor)) {
                return new ForJob.Refused("The job names context '" + name + "', which only members of its groups ("
                        + String.join(", ", dao.restrictions(contextId).stream().map(SecretDao.Restriction::groupName)
                        .toList()) + ") may use, and the pipeline's actor " + actor + " is in none of them.");
            }
            for (SecretDao.SealedVar v : dao.sealedContextVars(contextId)) {
                variables.remove(v.name()); // its place in the order is this context's
                variables.put(v.name(), box.open(h, contextContext(contextId, v.name()), v.dataKeyId(), v.sealed()));
            }
        }
        return new ForJob.Granted(variables);
    }

    // --- helpers ----------------------------------------------------------------------------------------------

    /** {@code xxxx} and the last four characters, as CircleCI shows them; only {@code xxxx} for a short value. */
    static String hint(String value) {
        int length = value.codePointCount(0, value.length());
        return length < 8 ? "xxxx" : "xxxx" + value.substring(value.offsetByCodePoints(0, length - 4));
    }

    static boolean masked(String value) {
        return value.codePointCount(0, value.length()) >= SHORTEST_MASKED;
    }

    private static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw ApiException.invalid("name", "an environment variable's name is " + NAME_RULE + ", got "
                    + ApiException.quote(name));
        }
    }

    private static void checkValue(String value) {
        if (value == null) {
            throw ApiException.invalid("value", "\"value\" is required");
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
            throw ApiException.invalid("value", "a value is at most " + MAX_VALUE_BYTES / 1024 + " KiB");
        }
    }

    private static Project project(Handle h, ProjectSlug slug) {
        return h.attach(ProjectDao.class).find(slug.organization(), slug.name())
                .orElseThrow(() -> ProjectRoutes.unknown(slug.toString()));
    }

    private static String projectContext(UUID projectId, String name) {
        return "project-env-var:" + projectId + ":" + name;
    }

    private static String contextContext(UUID contextId, String name) {
        return "context-env-var:" + contextId + ":" + name;
    }

    private static ApiException unknownContext(UUID id) {
        return ApiException.notFound("no context " + id);
    }

    private OffsetDateTime now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }
}
