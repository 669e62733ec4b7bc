package dev.gantry.server.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonFields;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.regex.Pattern;

/**
 * A checked trigger: {@code {"branch"|"tag"?, "revision"?, "parameters"?}}, at most one of branch and tag. With
 * neither, the pipeline builds the repository's default branch, which the plan builder resolves once it has fetched
 * the repository (a revision then needs its branch or tag: alone it says nothing about where it is).
 *
 * @param ref        the branch or tag, or null for the repository's default branch
 * @param revision   the commit to build, 7 to 64 hex digits, or null
 * @param parameters pipeline parameters by name, each a string, number or boolean, sorted by name, as
 *                   {@link PipelineParameters} checks them
 */
record TriggerRequest(GitRef ref, String revision, SortedMap<String, Object> parameters) {
    static final Set<String> FIELDS = Set.of("branch", "tag", "revision", "parameters");

    private static final Pattern REVISION = Pattern.compile("[0-9a-fA-F]{7,64}");

    /** Reads and checks an API trigger, which may name neither branch nor tag; each problem is a 400 naming it. */
    static TriggerRequest from(JsonFields fields) {
        return from(fields, false);
    }

    /**
     * Reads and checks a trigger's request.
     *
     * @param refRequired whether it must name a branch or tag (a schedule's parameters must)
     */
    static TriggerRequest from(JsonFields fields, boolean refRequired) {
        Optional<String> branch = fields.optionalString("branch");
        Optional<String> tag = fields.optionalString("tag");
        if (branch.isPresent() && tag.isPresent()) {
            throw ApiException.invalid("branch", "give at most one of \"branch\" and \"tag\", not both");
        }
        Optional<String> revisionText = fields.optionalString("revision");
        if (branch.isEmpty() && tag.isEmpty() && (refRequired || revisionText.isPresent())) {
            throw ApiException.invalid("branch", "give exactly one of \"branch\" and \"tag\""
                    + (refRequired ? "" : " with a \"revision\" (leave all three out to build the default branch)"));
        }
        GitRef ref = branch.map(name -> GitRef.branch(checkedRefName("branch", name)))
                .orElseGet(() -> tag.map(name -> GitRef.tag(checkedRefName("tag", name))).orElse(null));
        String revision = revisionText.map(TriggerRequest::checkedRevision).orElse(null);
        SortedMap<String, Object> parameters = fields.optionalObject("parameters")
                .map(TriggerRequest::checkedParameters).orElse(Collections.emptySortedMap());
        return new TriggerRequest(ref, revision, parameters);
    }

    /**
     * SHA-256 of the request in a canonical form (fields and parameters in a fixed order, no whitespace), so that the
     * same request sent with other formatting or key order has the same hash, and a different request another.
     */
    byte[] hash() {
        Map<String, Object> canonical = new LinkedHashMap<>();
        if (ref != null) {
            canonical.put(ref.kind() == GitRef.Kind.BRANCH ? "branch" : "tag", ref.name());
        }
        canonical.put("revision", revision);
        canonical.put("parameters", parameters);
        try {
            return MessageDigest.getInstance("SHA-256").digest(Json.write(canonical).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static String checkedRefName(String field, String name) {
        if (!GitRef.validName(name)) {
            throw ApiException.invalid(field, "\"" + field + "\" must be " + GitRef.NAME_RULE + ", got "
                    + ApiException.quote(name));
        }
        return name;
    }

    private static String checkedRevision(String text) {
        if (!REVISION.matcher(text).matches()) {
            throw ApiException.invalid("revision", "\"revision\" must be a commit id of 7 to 64 hex digits, got "
                    + ApiException.quote(text));
        }
        return text;
    }

    private static SortedMap<String, Object> checkedParameters(ObjectNode object) {
        return PipelineParameters.checked(object, "parameters");
    }
}
