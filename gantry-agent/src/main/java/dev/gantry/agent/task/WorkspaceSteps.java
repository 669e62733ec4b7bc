package dev.gantry.agent.task;

import dev.gantry.agent.protocol.WorkspaceLayer;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code persist_to_workspace} and {@code attach_workspace}. A layer is a {@code tar.gz} of the persisted paths,
 * named relative to {@code root}; attaching extracts every layer the server lists, oldest first, into {@code at},
 * so later files overwrite earlier ones. A path with {@code * ? [ \} is a pattern ({@link PathGlob}, Go's, as in
 * CircleCI) and must match something; one without must exist.
 */
final class WorkspaceSteps {
    private WorkspaceSteps() {
    }

    static StepResult persist(StepContext ctx, Step.PersistToWorkspace step) throws IOException, InterruptedException {
        Path root = ctx.path(step.root() == null ? "." : step.root());
        List<Archives.Root> roots = new ArrayList<>();
        for (String configPath : step.paths()) {
            Path path = StepContext.expand(configPath, ctx.sandbox().home(), root);
            if (!path.startsWith(root)) {
                ctx.log().line("Cannot persist " + configPath + ": it is not inside the root " + root);
                return StepResult.FAILED;
            }
            String relative = root.relativize(path).toString();
            boolean pattern = PathGlob.isPattern(configPath);
            // only the part before the first wildcard is copied out of the sandbox to be matched on the host
            Optional<Path> mirror = mirror(ctx, root, pattern ? literalPrefix(relative) : relative);
            List<Path> matched;
            if (pattern) {
                try {
                    matched = mirror.isEmpty() ? List.of() : PathGlob.matches(mirror.get(), relative);
                } catch (IllegalArgumentException e) {
                    ctx.log().line("Cannot persist " + configPath + ": " + e.getMessage());
                    return StepResult.FAILED;
                }
                if (matched.isEmpty()) {
                    ctx.log().line("Cannot persist " + configPath + ": the pattern matches nothing in " + root);
                    return StepResult.FAILED;
                }
                ctx.log().line(configPath + " matches " + describe(mirror.get(), matched));
            } else if (mirror.isPresent()) {
                matched = List.of(mirror.get().resolve(relative));
            } else {
                ctx.log().line("Cannot persist " + configPath + ": " + path + " does not exist");
                return StepResult.FAILED;
            }
            for (Path match : matched) {
                String name = mirror.get().relativize(match).toString();
                roots.add(new Archives.Root(match, name.isEmpty() ? "." : name));
            }
        }
        Path archive = Files.createTempFile(ctx.dir().tmp(), "workspace-", ".tar.gz");
        try {
            int entries = Archives.create(archive, roots);
            String layer = ctx.server().uploadWorkspaceLayer(ctx.task(), archive);
            ctx.log().line("Persisted " + entries + " entries from " + root + " as workspace layer " + layer + " ("
                    + Files.size(archive) + " bytes)");
        } finally {
            Files.deleteIfExists(archive);
        }
        return StepResult.SUCCESS;
    }

    /**
     * A host directory that stands for {@code root} and holds what {@code root/relative} holds in the sandbox (and
     * nothing else of it); empty when that does not exist. On the host shell it is {@code root} itself.
     */
    private static Optional<Path> mirror(StepContext ctx, Path root, String relative)
            throws IOException, InterruptedException {
        Path staged = ctx.dir().newStaging();
        if (relative.isEmpty()) {
            return ctx.sandbox().read(root, staged);
        }
        Path wanted = root.resolve(relative);
        Path parent = staged.resolve(relative).getParent();
        Files.createDirectories(parent);
        Optional<Path> copy = ctx.sandbox().read(wanted, parent);
        return copy.map(c -> c.equals(wanted) ? root : staged);
    }

    /** The leading path segments of {@code pattern} that hold no wildcard ({@code build/libs} of {@code build/libs/*.jar}). */
    static String literalPrefix(String pattern) {
        String[] segments = pattern.split("/");
        StringBuilder prefix = new StringBuilder();
        for (int i = 0; i < segments.length - 1 && !PathGlob.isPattern(segments[i]); i++) {
            prefix.append(prefix.isEmpty() ? "" : "/").append(segments[i]);
        }
        return prefix.toString();
    }

    /** The first few matches by name, and how many more: a pattern can match thousands of files. */
    private static String describe(Path root, List<Path> matched) {
        int shown = Math.min(matched.size(), 5);
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < shown; k++) {
            out.append(k == 0 ? "" : ", ").append(root.relativize(matched.get(k)));
        }
        if (matched.size() > shown) {
            out.append(" and ").append(matched.size() - shown).append(" more");
        }
        return out.toString();
    }

    static StepResult attach(StepContext ctx, Step.AttachWorkspace step) throws IOException, InterruptedException {
        Path at = ctx.path(step.at() == null ? "." : step.at());
        List<WorkspaceLayer> layers = ctx.server().workspaceLayers(ctx.task());
        if (layers.isEmpty()) {
            ctx.log().line("No workspace was persisted by the jobs this one requires.");
            return StepResult.SUCCESS;
        }
        // every layer, oldest first, into one staged tree, then that tree into the sandbox at once
        Path staged = ctx.dir().newStaging();
        for (WorkspaceLayer layer : layers) {
            Path archive = Files.createTempFile(ctx.dir().tmp(), "layer-", ".tar.gz");
            try {
                ctx.server().downloadWorkspaceLayer(ctx.task(), layer.id(), archive);
                int entries = Archives.extract(archive, name -> new Archives.Placement(staged.resolve(name), staged));
                ctx.log().line("Attached layer " + layer.id() + " (" + entries + " entries) at " + at);
            } finally {
                Files.deleteIfExists(archive);
            }
        }
        ctx.sandbox().write(staged, at);
        return StepResult.SUCCESS;
    }
}
