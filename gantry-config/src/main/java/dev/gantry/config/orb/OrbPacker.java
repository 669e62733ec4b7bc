package dev.gantry.config.orb;

import dev.gantry.config.yaml.YamlLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Packs an orb's unpacked source into the one YAML document a registry publishes, as {@code circleci orb pack} does.
 *
 * <p>The layout is that of CircleCI orb repositories: {@code src/@orb.yml} holds the orb's top-level keys, and each
 * {@code src/commands/NAME.yml} (likewise {@code jobs/}, {@code executors/}, {@code examples/}, or any other
 * subdirectory holding YAML) becomes the entry {@code commands: {NAME: …}}. Deeper subdirectories only organise:
 * {@code commands/aws/login.yml} is {@code commands.login}, and two files claiming one name are an error. In the
 * commands, jobs and executors, {@code <<include(scripts/install.sh)>>} is replaced by that file's text, read relative
 * to {@code src/}, with each {@code <<} in it written {@code \<<} so the script's own text is never read as a
 * parameter. Aliases and merge keys are resolved; scalars keep the text they were written with.
 *
 * <p>The output keeps the order of {@code @orb.yml}, then commands, jobs, executors, examples and other sections, each
 * sorted by file name, so packing the same source always gives the same bytes. Reads only under the directory given;
 * thread-safe (no shared state).
 */
public final class OrbPacker {
    /** Sections in the order circleci writes them; other subdirectories follow, by name. */
    static final List<String> SECTIONS = List.of("commands", "jobs", "executors", "examples");
    /** The sections whose strings may include a file: includes bring scripts into steps, not into examples. */
    private static final List<String> INCLUDING = List.of("commands", "jobs", "executors");
    private static final List<String> ROOT_FILES = List.of("@orb.yml", "@orb.yaml", "orb.yml", "orb.yaml");
    /** circleci's directive: spaces inside the brackets allowed, one or several in a value, text around them kept. */
    private static final Pattern INCLUDE = Pattern.compile("<<\\s*include\\(([-\\w/.]+)\\)?\\s*>>");

    private OrbPacker() {
    }

    /**
     * The packed orb from {@code sourceDir}: the orb's {@code src/} directory, or a repository root holding
     * {@code src/@orb.yml}.
     *
     * @throws OrbPackException naming the file and the problem: YAML that does not parse (with its line:column), a
     *                          file that is not a map, two files defining one name, or an include that is missing
     *                          or points outside the source directory
     */
    public static String pack(Path sourceDir) throws OrbPackException {
        Path src = sourceRoot(sourceDir.toAbsolutePath().normalize());
        Map<String, Object> orb = new LinkedHashMap<>();
        for (Path file : list(src, true)) {
            if (isYaml(file)) {
                orb.putAll(readRootFile(src, file));
            }
        }
        List<Path> sections = list(src, false).stream().filter(Files::isDirectory).sorted((a, b) -> {
            int ia = sectionRank(a);
            int ib = sectionRank(b);
            return ia != ib ? Integer.compare(ia, ib)
                    : a.getFileName().toString().compareTo(b.getFileName().toString());
        }).toList();
        for (Path dir : sections) {
            String section = dir.getFileName().toString();
            Map<String, Object> entries = new LinkedHashMap<>();
            Map<String, Path> origins = new LinkedHashMap<>();
            collectSection(src, dir, INCLUDING.contains(section), entries, origins);
            if (entries.isEmpty()) {
                continue; // scripts/ and the like hold included files, not a section
            }
            Map<String, Object> merged = new LinkedHashMap<>();
            if (orb.get(section) instanceof Map<?, ?> inline) {
                inline.forEach((k, v) -> merged.put(String.valueOf(k), v));
            }
            merged.putAll(entries);
            orb.put(section, merged);
        }
        return PackYaml.dump(orb);
    }

    private static Path sourceRoot(Path dir) throws OrbPackException {
        if (!Files.isDirectory(dir)) {
            throw new OrbPackException(dir + ": not a directory; give the orb's src directory");
        }
        if (ROOT_FILES.stream().anyMatch(f -> Files.isRegularFile(dir.resolve(f)))) {
            return dir;
        }
        if (Files.isRegularFile(dir.resolve("src").resolve("@orb.yml"))) {
            return dir.resolve("src");
        }
        throw new OrbPackException(dir + ": no @orb.yml here or in " + dir.resolve("src")
                + "; give the orb's src directory");
    }

    private static int sectionRank(Path dir) {
        int i = SECTIONS.indexOf(dir.getFileName().toString());
        return i < 0 ? SECTIONS.size() : i;
    }

    private static Map<String, Object> readRootFile(Path src, Path file) throws OrbPackException {
        PackYaml yaml = new PackYaml();
        Map<String, Object> content = readMap(yaml, src, file);
        for (String section : INCLUDING) {
            if (content.containsKey(section)) {
                content.put(section, resolveIncludes(yaml, src, file, content.get(section)));
            }
        }
        return content;
    }

    /** Adds the entries of {@code dir} and its subdirectories: this directory's files first, then each subdirectory. */
    private static void collectSection(Path src, Path dir, boolean includes, Map<String, Object> entries,
            Map<String, Path> origins) throws OrbPackException {
        List<Path> children = list(dir, false);
        for (Path file : children) {
            if (!Files.isRegularFile(file) || !isYaml(file)) {
                continue;
            }
            PackYaml yaml = new PackYaml();
            Map<String, Object> content = readMap(yaml, src, file);
            Object resolved = includes ? resolveIncludes(yaml, src, file, content) : content;
            String name = file.getFileName().toString();
            if (name.startsWith("@")) {
                // @-files hold several entries at once, as @orb.yml holds the top-level keys.
                for (Map.Entry<?, ?> e : ((Map<?, ?>) resolved).entrySet()) {
                    claim(src, entries, origins, String.valueOf(e.getKey()), e.getValue(), file);
                }
            } else {
                claim(src, entries, origins, name.substring(0, name.lastIndexOf('.')), resolved, file);
            }
        }
        for (Path sub : children) {
            if (Files.isDirectory(sub)) {
                collectSection(src, sub, includes, entries, origins);
            }
        }
    }

    private static void claim(Path src, Map<String, Object> entries, Map<String, Path> origins, String name,
            Object value, Path file) throws OrbPackException {
        Path earlier = origins.putIfAbsent(name, file);
        if (earlier != null) {
            throw new OrbPackException(rel(src, file) + ": defines '" + name + "', which " + rel(src, earlier)
                    + " already defines; two files of one section cannot share a name");
        }
        entries.put(name, value);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readMap(PackYaml yaml, Path src, Path file) throws OrbPackException {
        String text = readText(file, rel(src, file));
        Object doc;
        try {
            doc = yaml.load(text);
        } catch (MarkedYAMLException e) {
            Mark at = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String where = at == null ? rel(src, file) : rel(src, file) + ":" + (at.getLine() + 1) + ":"
                    + (at.getColumn() + 1);
            String context = e.getContext() == null ? "" : e.getContext() + ", ";
            String began = YamlLoader.contextStart(e);
            throw new OrbPackException(where + ": invalid YAML: " + (context + e.getProblem()).replaceAll("\\s+", " ")
                    + (began == null ? "" : " (" + began + ")"), e);
        } catch (YAMLException e) {
            throw new OrbPackException(rel(src, file) + ": invalid YAML: " + e.getMessage(), e);
        }
        if (doc == null) {
            return new LinkedHashMap<>(); // an empty file adds nothing, as with circleci
        }
        if (!(doc instanceof Map<?, ?> map)) {
            throw new OrbPackException(rel(src, file) + ":1:1: must be a YAML map at the top, not "
                    + (doc instanceof List<?> ? "a list" : "a single value"));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        ((Map<Object, Object>) map).forEach((k, v) ->
                out.put(k instanceof PackYaml.Plain p ? p.text() : String.valueOf(k), v));
        return out;
    }

    /** {@code value} with each include directive in its strings replaced by the file it names. */
    @SuppressWarnings("unchecked")
    private static Object resolveIncludes(PackYaml yaml, Path src, Path file, Object value) throws OrbPackException {
        switch (value) {
            case String s -> {
                return include(yaml, src, file, s);
            }
            case Map<?, ?> map -> {
                for (Map.Entry<Object, Object> e : ((Map<Object, Object>) map).entrySet()) {
                    e.setValue(resolveIncludes(yaml, src, file, e.getValue()));
                }
                return map;
            }
            case List<?> list -> {
                List<Object> items = (List<Object>) list;
                for (int i = 0; i < items.size(); i++) {
                    items.set(i, resolveIncludes(yaml, src, file, items.get(i)));
                }
                return list;
            }
            case null, default -> {
                return value;
            }
        }
    }

    private static String include(PackYaml yaml, Path src, Path file, String value) throws OrbPackException {
        Matcher m = INCLUDE.matcher(value);
        if (!m.find()) {
            return value;
        }
        Mark mark = yaml.markOf(value);
        String where = rel(src, file) + (mark == null ? "" : ":" + (mark.getLine() + 1) + ":" + (mark.getColumn() + 1));
        StringBuilder out = new StringBuilder();
        int last = 0;
        do {
            out.append(value, last, m.start());
            String named = m.group(1);
            Path target = src.resolve(named).normalize();
            if (named.startsWith("/") || !target.startsWith(src)) {
                throw new OrbPackException(where + ": include(" + named + ") points outside the orb's source "
                        + "directory; includes are read relative to " + src);
            }
            String text = readIncludedText(src, target, where, named);
            // Included scripts are text, not templates: their own << must reach the job as written.
            out.append(text.replace("<<", "\\<<"));
            last = m.end();
        } while (m.find());
        out.append(value, last, value.length());
        return out.toString();
    }

    private static String readIncludedText(Path src, Path target, String where, String named) throws OrbPackException {
        try {
            if (!target.toRealPath().startsWith(src.toRealPath())) {
                throw new OrbPackException(where + ": include(" + named + ") is a link to outside the orb's source "
                        + "directory");
            }
            return Files.readString(target, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new OrbPackException(where + ": include(" + named + ") names " + rel(src, target)
                    + ", which does not exist");
        } catch (IOException e) {
            throw new OrbPackException(where + ": include(" + named + ") cannot be read: " + e.getMessage(), e);
        }
    }

    private static String readText(Path file, String shown) throws OrbPackException {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new OrbPackException(shown + ": cannot be read: " + e.getMessage(), e);
        }
    }

    /** The regular files ({@code files}) or every entry of {@code dir}, dotfiles left out, sorted by name. */
    private static List<Path> list(Path dir, boolean files) throws OrbPackException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> out = new ArrayList<>(s.filter(p -> !p.getFileName().toString().startsWith("."))
                    .filter(p -> !files || Files.isRegularFile(p)).toList());
            out.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
            return out;
        } catch (IOException e) {
            throw new OrbPackException(dir + ": cannot be listed: " + e.getMessage(), e);
        }
    }

    private static boolean isYaml(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".yml") || name.endsWith(".yaml");
    }

    /** {@code file} as the user knows it: relative to the source directory when it is inside it. */
    private static String rel(Path src, Path file) {
        Path parent = src.getParent();
        return parent != null && file.startsWith(parent) ? parent.relativize(file).toString() : file.toString();
    }
}
