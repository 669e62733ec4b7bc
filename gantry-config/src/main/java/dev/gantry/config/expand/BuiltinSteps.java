package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.plan.Step;
import dev.gantry.config.yaml.Pos;
import dev.gantry.config.yaml.YNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses CircleCI's built-in steps into plan {@link Step}s, checking their keys and value types. */
final class BuiltinSteps {
    static final List<String> NAMES = List.of("run", "checkout", "setup_remote_docker", "add_ssh_keys", "save_cache",
            "restore_cache", "persist_to_workspace", "attach_workspace", "store_artifacts", "store_test_results", "deploy");
    /** Steps that may be written as a bare word. */
    private static final List<String> BARE = List.of("checkout", "setup_remote_docker", "add_ssh_keys");
    private static final Pattern DURATION = Pattern.compile(
            "(?:(\\d+(?:\\.\\d+)?)h)?(?:(\\d+(?:\\.\\d+)?)m)?(?:(\\d+(?:\\.\\d+)?)s)?");

    private final Problems problems;

    BuiltinSteps(Problems problems) {
        this.problems = problems;
    }

    static boolean isBuiltin(String name) {
        return NAMES.contains(name);
    }

    /** A built-in step written as a bare word ({@code - checkout}), or null after reporting. */
    Step bare(YNode.Scalar word, String path) {
        String name = word.text();
        if (!BARE.contains(name)) {
            problems.error(word.pos(), path, "step '" + name + "' needs settings, not a bare name",
                    "write it as '" + name + ": {…}'");
            return null;
        }
        return parse(name, null, word.pos(), path);
    }

    /** A built-in step {@code kind: value}; null after reporting a problem. */
    Step parse(String kind, YNode value, Pos at, String path) {
        Fields f = new Fields(kind, value, at, path);
        if (kind.equals("run") || kind.equals("deploy")) {
            if (kind.equals("deploy")) {
                problems.warning(at, path,
                        "the 'deploy' step is deprecated and runs as 'run'", "use 'run'");
            }
            return run(f);
        }
        if (!f.check(keysOf(kind))) {
            return null;
        }
        Step.When when = f.when();
        String name = f.string("name");
        return switch (kind) {
            case "checkout" -> new Step.Checkout(or(name, "Checkout code"), f.string("path"), when);
            case "setup_remote_docker" -> new Step.SetupRemoteDocker(or(name, "Setup a remote Docker engine"),
                    f.string("version"), f.bool("docker_layer_caching"), when);
            case "add_ssh_keys" -> new Step.AddSshKeys(or(name, "Add SSH keys"), f.strings("fingerprints", false), when);
            case "save_cache" -> new Step.SaveCache(or(name, "Saving cache"), f.required("key"),
                    f.strings("paths", true), when);
            case "restore_cache" -> restoreCache(f, or(name, "Restoring cache"), when);
            case "persist_to_workspace" -> new Step.PersistToWorkspace(or(name, "Persisting to workspace"),
                    f.required("root"), f.strings("paths", true), when);
            case "attach_workspace" -> new Step.AttachWorkspace(or(name, "Attaching workspace"), f.required("at"), when);
            case "store_artifacts" -> new Step.StoreArtifacts(or(name, "Uploading artifacts"), f.required("path"),
                    f.string("destination"), when);
            case "store_test_results" -> new Step.StoreTestResults(or(name, "Uploading test results"),
                    f.required("path"), when);
            default -> throw new IllegalArgumentException("not a built-in step: " + kind);
        };
    }

    private static List<String> keysOf(String kind) {
        return switch (kind) {
            case "checkout" -> List.of("name", "path", "when", "method");
            case "setup_remote_docker" -> List.of("name", "version", "docker_layer_caching", "when");
            case "add_ssh_keys" -> List.of("name", "fingerprints", "when");
            case "save_cache" -> List.of("name", "key", "paths", "when");
            case "restore_cache" -> List.of("name", "key", "keys", "when");
            case "persist_to_workspace" -> List.of("name", "root", "paths", "when");
            case "attach_workspace" -> List.of("name", "at", "when");
            case "store_artifacts" -> List.of("name", "path", "destination", "when");
            case "store_test_results" -> List.of("name", "path", "when");
            default -> List.of();
        };
    }

    private Step run(Fields f) {
        if (f.value instanceof YNode.Scalar s && s.value() != null) {
            String command = s.text();
            return new Step.Run(firstLine(command), command, null, Map.of(), false, null, null, Step.When.ON_SUCCESS);
        }
        if (!f.check(List.of("name", "command", "shell", "environment", "background", "working_directory",
                "no_output_timeout", "when", "max_auto_reruns", "auto_rerun_delay"))) {
            return null;
        }
        String command = f.required("command");
        if (command == null) {
            return null;
        }
        return new Step.Run(or(f.string("name"), firstLine(command)), command, f.string("shell"),
                f.environment("environment"), f.bool("background"), f.string("working_directory"),
                f.duration("no_output_timeout"), f.when());
    }

    private Step restoreCache(Fields f, String name, Step.When when) {
        List<String> keys = new ArrayList<>();
        String key = f.string("key");
        if (key != null) {
            keys.add(key);
        }
        keys.addAll(f.strings("keys", false));
        if (keys.isEmpty()) {
            problems.error(f.pos(), f.path, "'restore_cache' needs 'key' or 'keys'");
            return null;
        }
        return new Step.RestoreCache(name, keys, when);
    }

    private static String or(String value, String fallback) {
        return value != null ? value : fallback;
    }

    private static String firstLine(String command) {
        String t = command.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }

    /** The settings map of one step, read with type checks that report at the offending node. */
    private final class Fields {
        final String kind;
        final YNode value;
        final YNode.MapNode map;
        final Pos at;
        final String path;

        Fields(String kind, YNode value, Pos at, String path) {
            this.kind = kind;
            this.at = at;
            this.value = value;
            this.map = value instanceof YNode.MapNode m ? m : null;
            this.path = path;
        }

        Pos pos() {
            return value == null ? at : value.pos();
        }

        boolean check(List<String> allowed) {
            if (map == null) {
                if (value == null || (value instanceof YNode.Scalar s && (s.isNull() || s.text().equals(kind)))) {
                    return true;
                }
                problems.error(value.pos(), path, "'" + kind + "' takes a map of settings, not " + value.describe());
                return false;
            }
            // CircleCI ignores unknown step keys (configs in the wild carry 'description:' on runs), so they warn;
            // a misspelt required key still fails, as missing.
            for (YNode.Entry e : map.entries()) {
                if (!allowed.contains(e.name())) {
                    String mean = Names.didYouMean(e.name(), allowed);
                    problems.warning(e.key().pos(), path + "." + e.name(), "unknown key '" + e.name() + "' in '" + kind
                            + "' is ignored", mean != null ? mean : "allowed: " + Names.list(allowed));
                }
            }
            return true;
        }

        String string(String key) {
            return Read.text(problems, map, key, path);
        }

        String required(String key) {
            String v = string(key);
            if (v == null && (map == null || !map.has(key))) {
                problems.error(pos(), path, "'" + kind + "' needs '" + key + "'");
            }
            return v;
        }

        boolean bool(String key) {
            YNode v = map == null ? null : map.get(key);
            if (v == null) {
                return false;
            }
            if (v instanceof YNode.Scalar s && s.value() instanceof Boolean b) {
                return b;
            }
            if (v instanceof YNode.Scalar s && (s.text().equals("true") || s.text().equals("false"))) {
                return Boolean.parseBoolean(s.text());
            }
            problems.error(v.pos(), path + "." + key, "'" + key + "' must be true or false, not " + v.describe());
            return false;
        }

        List<String> strings(String key, boolean required) {
            YNode v = map == null ? null : map.get(key);
            if (v == null) {
                if (required) {
                    problems.error(pos(), path, "'" + kind + "' needs '" + key + "'");
                }
                return List.of();
            }
            List<YNode> items = v instanceof YNode.SeqNode seq ? seq.items() : List.of(v);
            List<String> out = new ArrayList<>(items.size());
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i) instanceof YNode.Scalar s && s.value() != null) {
                    out.add(s.text());
                } else {
                    problems.error(items.get(i).pos(), path + "." + key, "'" + key + "' must be a list of values");
                }
            }
            return out;
        }

        Map<String, String> environment(String key) {
            return Environments.read(map == null ? null : map.get(key), path + "." + key, problems);
        }

        Duration duration(String key) {
            String text = string(key);
            if (text == null) {
                return null;
            }
            Matcher m = DURATION.matcher(text.strip());
            if (text.isBlank() || !m.matches()) {
                problems.error(map.get(key).pos(), path + "." + key, "'" + key + "' must be a duration like 10m, "
                        + "1h30m or 90s, not '" + text + "'");
                return null;
            }
            double seconds = part(m.group(1)) * 3600 + part(m.group(2)) * 60 + part(m.group(3));
            return Duration.ofMillis(Math.round(seconds * 1000));
        }

        private double part(String g) {
            return g == null ? 0 : Double.parseDouble(g);
        }

        Step.When when() {
            String text = string("when");
            if (text == null) {
                return Step.When.ON_SUCCESS;
            }
            Step.When w = Step.When.fromWord(text);
            if (w == null) {
                problems.error(map.get("when").pos(), path + ".when", "'when' must be on_success, on_fail or always, "
                        + "not '" + text + "'");
                return Step.When.ON_SUCCESS;
            }
            return w;
        }
    }
}
