package dev.gantry.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.cli.client.GantryClientException;
import dev.gantry.config.orb.OrbPackException;
import dev.gantry.config.orb.OrbPacker;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gantry orb …}: the server's orb store from the command line. Every subcommand but {@code pack} talks to a
 * running server; each exits 0 when it did what it says, 1 when the server refused, 2 when it could not ask.
 */
@Command(name = "orb", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
        description = "Publish, import, pack and look up the orbs the server serves to configs.",
        subcommands = {OrbCommand.Publish.class, OrbCommand.Import.class, OrbCommand.Pack.class,
            OrbCommand.ListOrbs.class, OrbCommand.Versions.class, OrbCommand.Show.class})
final class OrbCommand implements Runnable {
    /** {@code namespace/name@version}, as configs write it. */
    static final Pattern REFERENCE = Pattern.compile("([a-z0-9][a-z0-9_-]*)/([a-z0-9][a-z0-9_-]*)@(\\S+)");
    /** {@code namespace/name}. */
    static final Pattern NAME = Pattern.compile("([a-z0-9][a-z0-9_-]*)/([a-z0-9][a-z0-9_-]*)");

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The match of {@code text} against {@code pattern}, or an error saying it is not {@code what}. */
    static Matcher parse(Pattern pattern, String text, String what) {
        Matcher m = pattern.matcher(text);
        if (!m.matches()) {
            throw new GantryClientException("'" + text + "' is not " + what);
        }
        return m;
    }

    @Command(name = "publish", mixinStandardHelpOptions = true,
            description = "Publish a packed orb (one YAML file) as namespace/name@X.Y.Z (or @dev:LABEL).")
    static final class Publish extends ServerCall {
        @Parameters(index = "0", paramLabel = "FILE", description = "The orb's packed source (see 'gantry orb pack').")
        Path file;

        @Parameters(index = "1", paramLabel = "NAMESPACE/NAME@VERSION")
        String reference;

        @Override
        int call(GantryClient client, PrintWriter out) throws IOException {
            Matcher ref = parse(REFERENCE, reference, "namespace/name@version");
            GantryClient.Answer answer = put(client, ref.group(1), ref.group(2), ref.group(3),
                    Files.readString(file, StandardCharsets.UTF_8), "published");
            if (!answer.ok()) {
                return fail(1, reference + ": " + answer.message());
            }
            out.println(reference + ": " + answer.json().path("outcome").asText() + " (sha256 "
                    + answer.json().path("sha256").asText().substring(0, 12) + ")");
            return 0;
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Import packed orbs: a file named NAMESPACE/NAME@VERSION.yml, or a directory of them laid "
                    + "out as DIR/NAMESPACE/NAME@VERSION.yml (the layout of --orb-dir).",
                "Orbs that import other orbs are published after them."})
    static final class Import extends ServerCall {
        private static final Pattern FILE_NAME = Pattern.compile("([a-z0-9][a-z0-9_-]*)@(.+)\\.ya?ml");

        @Parameters(index = "0", paramLabel = "PATH")
        Path path;

        @Override
        int call(GantryClient client, PrintWriter out) throws IOException {
            List<Path> files = new ArrayList<>();
            if (Files.isDirectory(path)) {
                try (Stream<Path> walk = Files.walk(path)) {
                    walk.filter(f -> Files.isRegularFile(f) && FILE_NAME.matcher(f.getFileName().toString()).matches())
                            .sorted().forEach(files::add);
                }
            } else {
                files.add(path);
            }
            if (files.isEmpty()) {
                return fail(1, "no NAMESPACE/NAME@VERSION.yml files under " + path);
            }
            // An orb's imports must be in the store first: repeat the refused ones while each round stores some.
            List<Path> left = files;
            List<String> refusals = new ArrayList<>();
            while (!left.isEmpty()) {
                List<Path> refused = new ArrayList<>();
                refusals.clear();
                for (Path file : left) {
                    Matcher name = FILE_NAME.matcher(file.getFileName().toString());
                    Path parent = file.toAbsolutePath().getParent();
                    if (!name.matches() || parent == null || parent.getFileName() == null) {
                        return fail(1, file + ": name it NAMESPACE/NAME@VERSION.yml");
                    }
                    String reference = parent.getFileName() + "/" + name.group(1) + "@" + name.group(2);
                    GantryClient.Answer answer = put(client, parent.getFileName().toString(), name.group(1),
                            name.group(2), Files.readString(file, StandardCharsets.UTF_8), "imported");
                    if (answer.ok()) {
                        out.println(reference + ": " + answer.json().path("outcome").asText());
                    } else {
                        refused.add(file);
                        refusals.add(reference + ": " + answer.message());
                    }
                }
                if (refused.size() == left.size()) {
                    break;
                }
                left = refused;
            }
            out.flush();
            refusals.forEach(r -> fail(1, r));
            return refusals.isEmpty() ? 0 : 1;
        }
    }

    @Command(name = "pack", mixinStandardHelpOptions = true,
            description = "Pack an orb's source directory (src/@orb.yml, commands/, jobs/, executors/, examples/, "
                    + "<<include(file)>>) into one YAML file, as 'circleci orb pack' does. Needs no server.")
    static final class Pack implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "The orb's src directory, or the repository "
                + "holding src/@orb.yml.")
        Path dir;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write there (default: standard "
                + "output).")
        Path output;

        @Override
        public Integer call() throws IOException {
            String packed;
            try {
                packed = OrbPacker.pack(dir);
            } catch (OrbPackException e) {
                spec.commandLine().getErr().println("gantry orb pack: " + e.getMessage());
                return 1;
            }
            if (output == null) {
                spec.commandLine().getOut().print(packed);
            } else {
                Files.writeString(output, packed, StandardCharsets.UTF_8);
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the orbs in the server's store.")
    static final class ListOrbs extends ServerCall {
        @Override
        int call(GantryClient client, PrintWriter out) {
            GantryClient.Answer answer = client.get("/api/v2/orbs");
            if (!answer.ok()) {
                return fail(1, answer.message());
            }
            out.printf("%-40s %8s  %s%n", "ORB", "VERSIONS", "LATEST");
            for (JsonNode orb : answer.json().path("items")) {
                out.printf("%-40s %8d  %s%n", orb.path("name").asText(), orb.path("versions").asInt(),
                        orb.path("latest_version").asText("-"));
            }
            return 0;
        }
    }

    @Command(name = "versions", mixinStandardHelpOptions = true, description = "List an orb's versions.")
    static final class Versions extends ServerCall {
        @Parameters(index = "0", paramLabel = "NAMESPACE/NAME")
        String name;

        @Override
        int call(GantryClient client, PrintWriter out) {
            Matcher orb = parse(NAME, name, "namespace/name");
            GantryClient.Answer answer = client.get("/api/v2/orbs/" + orb.group(1) + "/" + orb.group(2));
            if (!answer.ok()) {
                return fail(1, answer.message());
            }
            for (JsonNode version : answer.json().path("versions")) {
                out.printf("%-20s %-10s %s%n", version.path("version").asText(), version.path("origin").asText(),
                        version.path("created_at").asText());
            }
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print the source of the version a reference picks (@X.Y.Z, @X, @volatile, @dev:LABEL).")
    static final class Show extends ServerCall {
        @Parameters(index = "0", paramLabel = "NAMESPACE/NAME@VERSION")
        String reference;

        @Override
        int call(GantryClient client, PrintWriter out) {
            Matcher ref = parse(REFERENCE, reference, "namespace/name@version");
            GantryClient.Answer answer = client.get("/api/v2/orbs/" + ref.group(1) + "/" + ref.group(2) + "/"
                    + GantryClient.encode(ref.group(3)));
            if (!answer.ok()) {
                return fail(1, answer.message());
            }
            out.println("# " + answer.json().path("name").asText() + "@" + answer.json().path("version").asText());
            out.print(answer.json().path("source").asText());
            return 0;
        }
    }

    static GantryClient.Answer put(GantryClient client, String namespace, String name, String version, String source,
                                   String origin) {
        return client.put("/api/v2/orbs/" + namespace + "/" + name + "/" + GantryClient.encode(version) + "?origin="
                + origin, source, "application/yaml");
    }
}
