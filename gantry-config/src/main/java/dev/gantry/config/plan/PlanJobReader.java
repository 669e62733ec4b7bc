package dev.gantry.config.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one job back from the JSON {@link PlanJson#writeJob} gives. Fields that writer leaves out read as their
 * defaults (no {@code when} is {@code on_success}, no {@code background} is false, …). Fields this reader does not
 * know are ignored, so an agent can read a job from a newer server; a missing or mistyped field it needs, an unknown
 * word or step kind throws {@link IllegalArgumentException} naming the field's path ({@code steps[2].run.command}).
 * Stateless and thread-safe.
 */
final class PlanJobReader {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** {@link PlanYaml#duration}'s form: {@code 1h2m5s250ms}, {@code 0s}, possibly negative. */
    private static final Pattern DURATION =
            Pattern.compile("(-)?(?:(\\d+)h)?(?:(\\d+)m(?!s))?(?:(\\d+)s)?(?:(\\d+)ms)?");

    private PlanJobReader() {
    }

    static PlanJob read(String json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("job JSON is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("job JSON must be an object");
        }
        return job(new Obj(root, ""));
    }

    private static PlanJob job(Obj o) {
        JobType type = word(o, "type", JobType::fromWord, "build, approval or no-op");
        Map<String, List<RequiredStatus>> requires = new LinkedHashMap<>();
        Obj req = o.object("requires");
        if (req != null) {
            req.node.fieldNames().forEachRemaining(upstream -> requires.put(upstream,
                    req.strings(upstream).stream().map(w -> known(RequiredStatus.fromWord(w), req.path(upstream), w,
                            "success, failed or canceled")).toList()));
        }
        Obj executor = o.object("executor");
        List<Step> steps = new ArrayList<>();
        List<JsonNode> stepNodes = o.array("steps");
        for (int i = 0; i < stepNodes.size(); i++) {
            steps.add(step(stepNodes.get(i), o.path("steps") + "[" + i + "]"));
        }
        JsonNode parallelism = o.node.get("parallelism");
        if (parallelism != null && !parallelism.canConvertToExactIntegral()) {
            throw new IllegalArgumentException(o.path("parallelism") + ": must be a whole number, got " + parallelism);
        }
        return new PlanJob(o.required("name"), o.required("job"), type, requires, o.string("resource_class"),
                executor == null ? null : executor(executor), parallelism == null ? 1 : parallelism.intValue(),
                o.string("shell"), o.string("working_directory"), o.stringMap("environment"), o.strings("contexts"),
                o.string("serial_group"), matrix(o.object("matrix")), steps);
    }

    private static Executor executor(Obj o) {
        String type = o.required("type");
        return switch (type) {
            case "docker" -> {
                List<Executor.DockerImage> images = new ArrayList<>();
                List<JsonNode> nodes = o.array("images");
                for (int i = 0; i < nodes.size(); i++) {
                    images.add(image(Obj.of(nodes.get(i), o.path("images") + "[" + i + "]")));
                }
                if (images.isEmpty()) {
                    throw new IllegalArgumentException(o.path("images") + ": a docker executor needs at least one image");
                }
                yield new Executor.Docker(images);
            }
            case "machine" -> new Executor.Machine(o.string("image"), o.bool("docker_layer_caching"));
            case "macos" -> new Executor.Macos(o.string("xcode"));
            default -> throw new IllegalArgumentException(o.path("type") + ": must be docker, machine or macos, got '"
                    + type + "'");
        };
    }

    private static Executor.DockerImage image(Obj o) {
        Obj auth = o.object("auth");
        Obj awsAuth = o.object("aws_auth");
        return new Executor.DockerImage(o.required("image"), o.string("name"), o.stringsOrNull("entrypoint"),
                o.stringsOrNull("command"), o.string("user"), o.stringMap("environment"),
                auth == null ? null : auth.stringMap(null), awsAuth == null ? null : awsAuth.stringMap(null));
    }

    private static Step step(JsonNode node, String path) {
        Obj wrapper = Obj.of(node, path);
        if (node.size() != 1) {
            throw new IllegalArgumentException(path + ": a step must have exactly one key, its kind, got " + node.size());
        }
        String kind = node.fieldNames().next();
        Obj f = wrapper.object(kind);
        if (f == null) {
            throw new IllegalArgumentException(wrapper.path(kind) + ": must be an object");
        }
        String name = f.required("name");
        Step.When when = f.node.has("when")
                ? word(f, "when", Step.When::fromWord, "on_success, on_fail or always") : Step.When.ON_SUCCESS;
        return switch (kind) {
            case "run" -> new Step.Run(name, f.required("command"), f.string("shell"), f.stringMap("environment"),
                    f.bool("background"), f.string("working_directory"), duration(f, "no_output_timeout"), when);
            case "checkout" -> new Step.Checkout(name, f.string("path"), when);
            case "setup_remote_docker" ->
                    new Step.SetupRemoteDocker(name, f.string("version"), f.bool("docker_layer_caching"), when);
            case "add_ssh_keys" -> new Step.AddSshKeys(name, f.strings("fingerprints"), when);
            case "save_cache" -> new Step.SaveCache(name, f.string("key"), f.strings("paths"), when);
            case "restore_cache" -> new Step.RestoreCache(name, f.strings("keys"), when);
            case "persist_to_workspace" -> new Step.PersistToWorkspace(name, f.string("root"), f.strings("paths"), when);
            case "attach_workspace" -> new Step.AttachWorkspace(name, f.string("at"), when);
            case "store_artifacts" -> new Step.StoreArtifacts(name, f.string("path"), f.string("destination"), when);
            case "store_test_results" -> new Step.StoreTestResults(name, f.string("path"), when);
            default -> throw new IllegalArgumentException(path + ": unknown step kind '" + kind + "'");
        };
    }

    /** Matrix values are the scalars the compiler keeps: strings, whole numbers as Long, decimals as Double, booleans. */
    private static Map<String, Object> matrix(Obj o) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (o == null) {
            return out;
        }
        o.node.fields().forEachRemaining(e -> {
            JsonNode v = e.getValue();
            out.put(e.getKey(), switch (v.getNodeType()) {
                case NULL -> null;
                case STRING -> v.textValue();
                case BOOLEAN -> v.booleanValue();
                case NUMBER -> v.isIntegralNumber() ? (Object) v.longValue() : (Object) v.doubleValue();
                default -> throw new IllegalArgumentException(o.path(e.getKey()) + ": a matrix value must be a scalar");
            });
        });
        return out;
    }

    static Duration duration(Obj o, String key) {
        String text = o.string(key);
        if (text == null) {
            return null;
        }
        Matcher m = DURATION.matcher(text);
        if (text.isEmpty() || text.equals("-") || !m.matches()) {
            throw new IllegalArgumentException(o.path(key) + ": must be a duration like 10m, 1h30m or 45s, got '"
                    + text + "'");
        }
        Duration d = Duration.ofHours(part(m.group(2))).plusMinutes(part(m.group(3))).plusSeconds(part(m.group(4)))
                .plusMillis(part(m.group(5)));
        return m.group(1) == null ? d : d.negated();
    }

    private static long part(String digits) {
        return digits == null ? 0 : Long.parseLong(digits);
    }

    private static <T> T word(Obj o, String key, Function<String, T> parse, String expected) {
        String text = o.required(key);
        return known(parse.apply(text), o.path(key), text, expected);
    }

    private static <T> T known(T value, String path, String text, String expected) {
        if (value == null) {
            throw new IllegalArgumentException(path + ": must be " + expected + ", got '" + text + "'");
        }
        return value;
    }

    /** A JSON object and its path from the job's root, for messages. */
    record Obj(JsonNode node, String at) {
        static Obj of(JsonNode node, String at) {
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException(at + ": must be an object");
            }
            return new Obj(node, at);
        }

        String path(String key) {
            return at.isEmpty() ? key : at + "." + key;
        }

        Obj object(String key) {
            JsonNode v = node.get(key);
            return v == null || v.isNull() ? null : of(v, path(key));
        }

        String string(String key) {
            JsonNode v = node.get(key);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isTextual()) {
                throw new IllegalArgumentException(path(key) + ": must be a string, got " + v.getNodeType());
            }
            return v.textValue();
        }

        String required(String key) {
            String v = string(key);
            if (v == null) {
                throw new IllegalArgumentException(path(key) + ": is required");
            }
            return v;
        }

        boolean bool(String key) {
            JsonNode v = node.get(key);
            if (v == null || v.isNull()) {
                return false;
            }
            if (!v.isBoolean()) {
                throw new IllegalArgumentException(path(key) + ": must be true or false, got " + v);
            }
            return v.booleanValue();
        }

        List<JsonNode> array(String key) {
            JsonNode v = node.get(key);
            if (v == null || v.isNull()) {
                return List.of();
            }
            if (!v.isArray()) {
                throw new IllegalArgumentException(path(key) + ": must be a list, got " + v.getNodeType());
            }
            List<JsonNode> out = new ArrayList<>();
            v.forEach(out::add);
            return out;
        }

        List<String> strings(String key) {
            List<JsonNode> items = array(key);
            List<String> out = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                if (!items.get(i).isTextual()) {
                    throw new IllegalArgumentException(path(key) + "[" + i + "]: must be a string");
                }
                out.add(items.get(i).textValue());
            }
            return out;
        }

        List<String> stringsOrNull(String key) {
            JsonNode v = node.get(key);
            return v == null || v.isNull() ? null : strings(key);
        }

        /** The string values of the object at {@code key}, or of this object itself when {@code key} is null. */
        Map<String, String> stringMap(String key) {
            Obj o = key == null ? this : object(key);
            Map<String, String> out = new LinkedHashMap<>();
            if (o != null) {
                o.node.fieldNames().forEachRemaining(k -> out.put(k, o.string(k)));
            }
            return out;
        }
    }
}
