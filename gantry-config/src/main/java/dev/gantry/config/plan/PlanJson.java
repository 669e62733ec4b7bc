package dev.gantry.config.plan;

import static dev.gantry.config.plan.PlanYaml.put;
import static dev.gantry.config.plan.PlanYaml.putUnless;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.PrettyPrinter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a {@link Plan} as deterministic, pretty-printed JSON: two-space indent, {@code "key": value}, LF line ends
 * and a trailing newline. Keys keep the plan's declaration order, so the same plan always gives the same bytes; this
 * is the form golden files and {@code gantry config process} use.
 *
 * <p>Stateless and thread-safe. Key names follow CircleCI's config words ({@code resource_class},
 * {@code working_directory}, …); null fields and default flags are left out.
 */
public final class PlanJson {
    private static final JsonFactory FACTORY = new JsonFactory();

    private PlanJson() {
    }

    /** The plan as JSON text ending in a newline. */
    public static String write(Plan plan) {
        Map<String, Object> root = new LinkedHashMap<>();
        if (plan.setup()) {
            root.put("setup", true);
        }
        List<Object> workflows = new ArrayList<>();
        for (PlanWorkflow w : plan.workflows()) {
            Map<String, Object> wf = new LinkedHashMap<>();
            wf.put("name", w.name());
            wf.put("jobs", w.jobs().stream().map(PlanJson::job).toList());
            workflows.add(wf);
        }
        root.put("workflows", workflows);
        return text(root);
    }

    /**
     * One job as JSON text ending in a newline, in the form {@link #write} gives each job of a plan: what the server
     * stores for a job and hands its agent.
     */
    public static String writeJob(PlanJob job) {
        return text(job(job));
    }

    /**
     * The job {@link #writeJob} wrote, read back: {@code readJob(writeJob(job))} equals {@code job}. Fields it does
     * not know are ignored (an agent may read a newer server's job).
     *
     * @throws IllegalArgumentException if the text is not JSON, or a field is missing, mistyped or an unknown word;
     *                                  the message names the field's path, like {@code steps[2].run.command}
     */
    public static PlanJob readJob(String json) {
        return PlanJobReader.read(json);
    }

    private static String text(Map<String, Object> root) {
        StringWriter out = new StringWriter();
        try (JsonGenerator gen = FACTORY.createGenerator(out)) {
            gen.setPrettyPrinter(new Printer());
            value(gen, root);
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to a string cannot fail", e);
        }
        return out.append('\n').toString();
    }

    private static Map<String, Object> job(PlanJob j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", j.name());
        m.put("job", j.job());
        m.put("type", j.type().word());
        Map<String, Object> requires = new LinkedHashMap<>();
        j.requires().forEach((upstream, statuses) ->
                requires.put(upstream, statuses.stream().map(RequiredStatus::word).toList()));
        m.put("requires", requires);
        put(m, "resource_class", j.resourceClass());
        put(m, "executor", j.executor() == null ? null : executor(j.executor()));
        m.put("parallelism", j.parallelism());
        put(m, "shell", j.shell());
        put(m, "working_directory", j.workingDirectory());
        m.put("environment", j.environment());
        m.put("contexts", j.contexts());
        put(m, "serial_group", j.serialGroup());
        putUnless(j.matrix().isEmpty(), m, "matrix", j.matrix());
        m.put("steps", j.steps().stream().map(s -> Map.of(s.kind(), PlanYaml.stepFields(s))).toList());
        return m;
    }

    private static Map<String, Object> executor(Executor executor) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", executor.kind());
        switch (executor) {
            case Executor.Docker d -> m.put("images", d.images().stream().map(PlanYaml::image).toList());
            case Executor.Machine mc -> {
                put(m, "image", mc.image());
                m.put("docker_layer_caching", mc.dockerLayerCaching());
            }
            case Executor.Macos mac -> m.put("xcode", mac.xcode());
        }
        return m;
    }

    private static void value(JsonGenerator gen, Object v) throws IOException {
        switch (v) {
            case null -> gen.writeNull();
            case String s -> gen.writeString(s);
            case Boolean b -> gen.writeBoolean(b);
            case Long l -> gen.writeNumber(l);
            case Integer i -> gen.writeNumber(i);
            case Double d -> gen.writeNumber(d);
            case Float f -> gen.writeNumber(f);
            case Map<?, ?> map -> {
                gen.writeStartObject();
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    gen.writeFieldName(String.valueOf(e.getKey()));
                    value(gen, e.getValue());
                }
                gen.writeEndObject();
            }
            case List<?> list -> {
                gen.writeStartArray();
                for (Object item : list) {
                    value(gen, item);
                }
                gen.writeEndArray();
            }
            default -> gen.writeString(v.toString());
        }
    }

    /**
     * Our own pretty printer rather than Jackson's default one, whose spacing ({@code "key" : value}, {@code [ ]})
     * has changed between releases: the bytes of a plan must not depend on the Jackson version. Empty containers
     * are written {@code {}} and {@code []}. One instance per document: it counts the nesting depth.
     */
    private static final class Printer implements PrettyPrinter {
        private int depth;

        private void open(JsonGenerator gen, char bracket) throws IOException {
            gen.writeRaw(bracket);
            depth++;
        }

        private void close(JsonGenerator gen, int count, char bracket) throws IOException {
            depth--;
            if (count > 0) {
                newline(gen);
            }
            gen.writeRaw(bracket);
        }

        private void newline(JsonGenerator gen) throws IOException {
            gen.writeRaw("\n" + "  ".repeat(depth));
        }

        private void comma(JsonGenerator gen) throws IOException {
            gen.writeRaw(',');
            newline(gen);
        }

        @Override
        public void writeRootValueSeparator(JsonGenerator gen) throws IOException {
            gen.writeRaw('\n');
        }

        @Override
        public void writeStartObject(JsonGenerator gen) throws IOException {
            open(gen, '{');
        }

        @Override
        public void beforeObjectEntries(JsonGenerator gen) throws IOException {
            newline(gen);
        }

        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator gen) throws IOException {
            gen.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator gen) throws IOException {
            comma(gen);
        }

        @Override
        public void writeEndObject(JsonGenerator gen, int entries) throws IOException {
            close(gen, entries, '}');
        }

        @Override
        public void writeStartArray(JsonGenerator gen) throws IOException {
            open(gen, '[');
        }

        @Override
        public void beforeArrayValues(JsonGenerator gen) throws IOException {
            newline(gen);
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator gen) throws IOException {
            comma(gen);
        }

        @Override
        public void writeEndArray(JsonGenerator gen, int values) throws IOException {
            close(gen, values, ']');
        }
    }
}
