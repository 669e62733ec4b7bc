package dev.gantry.config.expand;

import dev.gantry.config.diag.Problems;
import dev.gantry.config.plan.Executor;
import dev.gantry.config.yaml.YNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the {@code docker}, {@code machine} and {@code macos} keys of a job or executor into a plan executor. */
final class Executors {
    static final List<String> KINDS = List.of("docker", "machine", "macos");
    private static final List<String> IMAGE_KEYS = List.of("image", "name", "entrypoint", "command", "user",
            "environment", "auth", "aws_auth");
    private static final List<String> MACHINE_KEYS = List.of("image", "docker_layer_caching", "enabled",
            "resource_class");

    private final Problems problems;

    Executors(Problems problems) {
        this.problems = problems;
    }

    /** How many of docker, machine and macos {@code body} sets. */
    static int kindsIn(YNode.MapNode body) {
        int n = 0;
        for (String k : KINDS) {
            n += body.has(k) ? 1 : 0;
        }
        return n;
    }

    /** The executor {@code body} declares, or null when it declares none or it is malformed (reported). */
    Executor read(YNode.MapNode body, String path) {
        if (kindsIn(body) > 1) {
            problems.error(body.pos(), path, "only one of 'docker', 'machine' and 'macos' may be given, found "
                    + Names.list(KINDS.stream().filter(body::has).toList()));
            return null;
        }
        if (body.get("docker") != null) {
            return docker(body.get("docker"), path + ".docker");
        }
        if (body.has("machine")) {
            return machine(body.get("machine"), path + ".machine");
        }
        if (body.get("macos") != null) {
            return macos(body.get("macos"), path + ".macos");
        }
        return null;
    }

    private Executor docker(YNode node, String path) {
        if (!(node instanceof YNode.SeqNode seq) || seq.items().isEmpty()) {
            problems.error(node.pos(), path, "'docker' must be a non-empty list of images, not " + node.describe(),
                    "docker: [{image: cimg/base:stable}]");
            return null;
        }
        List<Executor.DockerImage> images = new ArrayList<>();
        for (int i = 0; i < seq.items().size(); i++) {
            Executor.DockerImage image = image(seq.items().get(i), path + "[" + i + "]");
            if (image == null) {
                return null;
            }
            images.add(image);
        }
        return new Executor.Docker(images);
    }

    private Executor.DockerImage image(YNode node, String path) {
        if (!(node instanceof YNode.MapNode map)) {
            problems.error(node.pos(), path, "a docker image must be a map with 'image', not " + node.describe());
            return null;
        }
        // CircleCI ignores keys it does not know in an image entry; failing on them would refuse configs it runs.
        Read.ignoredKeys(problems, map, path, IMAGE_KEYS, "a docker image");
        String image = text(map, "image", path);
        if (image == null || image.isBlank()) {
            problems.error(map.pos(), path, "a docker image needs 'image'");
            return null;
        }
        Map<String, String> auth = credentials(map, "auth", path, List.of(List.of("username", "password")));
        Map<String, String> awsAuth = credentials(map, "aws_auth", path,
                List.of(List.of("aws_access_key_id", "aws_secret_access_key"), List.of("oidc_role_arn")));
        return new Executor.DockerImage(image, text(map, "name", path), words(map.get("entrypoint"), path + ".entrypoint"),
                words(map.get("command"), path + ".command"), text(map, "user", path),
                Environments.read(map.get("environment"), path + ".environment", problems), auth, awsAuth);
    }

    /**
     * An image's {@code auth} or {@code aws_auth}: a map of values that holds every key of one of {@code forms}
     * (CircleCI's accepted shapes) and no key of another; null when the image has none or it is broken.
     */
    private Map<String, String> credentials(YNode.MapNode image, String key, String path, List<List<String>> forms) {
        YNode node = image.get(key);
        if (node == null) {
            return null;
        }
        String shapes = String.join(" or ", forms.stream().map(f -> "'" + String.join("' and '", f) + "'").toList());
        if (!(node instanceof YNode.MapNode m)) {
            problems.error(node.pos(), path + "." + key, "'" + key + "' must be a map with " + shapes);
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (YNode.Entry e : m.entries()) {
            if (forms.stream().noneMatch(f -> f.contains(e.name()))) {
                problems.warning(e.key().pos(), path + "." + key + "." + e.name(), "unknown key '" + e.name() + "' in '"
                        + key + "' is ignored", "allowed: " + shapes);
            } else if (e.value() instanceof YNode.Scalar s) {
                out.put(e.name(), s.value() == null ? "" : s.text());
            } else {
                problems.error(e.value().pos(), path + "." + key + "." + e.name(), "'" + e.name() + "' must be a value");
            }
        }
        if (forms.stream().noneMatch(f -> out.keySet().equals(Set.copyOf(f)))) {
            problems.error(m.pos(), path + "." + key, "'" + key + "' needs " + shapes);
            return null;
        }
        return out;
    }

    private Executor machine(YNode node, String path) {
        if (node instanceof YNode.Scalar s && (Boolean.TRUE.equals(s.value()) || s.isNull())) {
            return new Executor.Machine(null, false);
        }
        if (!(node instanceof YNode.MapNode map)) {
            problems.error(node.pos(), path, "'machine' must be true or a map with 'image', not " + node.describe());
            return null;
        }
        if (!checkKeys(map, path, MACHINE_KEYS, "'machine'")) {
            return null;
        }
        boolean dlc = map.get("docker_layer_caching") instanceof YNode.Scalar d && Boolean.TRUE.equals(d.value());
        return new Executor.Machine(text(map, "image", path), dlc);
    }

    private Executor macos(YNode node, String path) {
        if (!(node instanceof YNode.MapNode map) || text(map, "xcode", path) == null) {
            problems.error(node.pos(), path, "'macos' must be a map with 'xcode'", "macos: {xcode: 15.4.0}");
            return null;
        }
        checkKeys(map, path, List.of("xcode"), "'macos'");
        return new Executor.Macos(text(map, "xcode", path));
    }

    private boolean checkKeys(YNode.MapNode map, String path, List<String> allowed, String what) {
        return Read.knownKeys(problems, map, path, allowed, what);
    }

    private String text(YNode.MapNode map, String key, String path) {
        return Read.text(problems, map, key, path);
    }

    /** A command line given as one string or as a list of words. */
    private List<String> words(YNode node, String path) {
        if (node == null) {
            return null;
        }
        List<YNode> items = node instanceof YNode.SeqNode seq ? seq.items() : List.of(node);
        List<String> out = new ArrayList<>();
        for (YNode item : items) {
            if (item instanceof YNode.Scalar s && s.value() != null) {
                out.add(s.text());
            } else {
                problems.error(item.pos(), path, "must be a string or a list of strings");
            }
        }
        return out;
    }
}
