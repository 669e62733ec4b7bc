package dev.gantry.agent.task;

import dev.gantry.agent.protocol.WorkspaceLayer;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code persist_to_workspace} and {@code attach_workspace}. A layer is a {@code tar.gz} of the persisted paths,
 * named relative to {@code root}; attaching extracts every layer the server lists, oldest first, into {@code at},
 * so later files overwrite earlier ones. Paths are literal (no globs yet).
 */
final class WorkspaceSteps {
    private WorkspaceSteps() {
    }

    static StepResult persist(StepContext ctx, Step.PersistToWorkspace step) throws IOException, InterruptedException {
        Path root = ctx.path(step.root() == null ? "." : step.root());
        List<Archives.Root> roots = new ArrayList<>();
        for (String configPath : step.paths()) {
            Path path = ctx.dir().expand(configPath, root);
            if (!path.startsWith(root)) {
                ctx.log().line("Cannot persist " + configPath + ": it is not inside the root " + root);
                return StepResult.FAILED;
            }
            if (!Archives.exists(path)) {
                ctx.log().line("Cannot persist " + configPath + ": " + path + " does not exist");
                return StepResult.FAILED;
            }
            String name = root.relativize(path).toString();
            roots.add(new Archives.Root(path, name.isEmpty() ? "." : name));
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

    static StepResult attach(StepContext ctx, Step.AttachWorkspace step) throws IOException, InterruptedException {
        Path at = ctx.path(step.at() == null ? "." : step.at());
        Files.createDirectories(at);
        List<WorkspaceLayer> layers = ctx.server().workspaceLayers(ctx.task());
        if (layers.isEmpty()) {
            ctx.log().line("No workspace was persisted by the jobs this one requires.");
            return StepResult.SUCCESS;
        }
        for (WorkspaceLayer layer : layers) {
            Path archive = Files.createTempFile(ctx.dir().tmp(), "layer-", ".tar.gz");
            try {
                ctx.server().downloadWorkspaceLayer(ctx.task(), layer.id(), archive);
                int entries = Archives.extract(archive, name -> new Archives.Placement(at.resolve(name), at));
                ctx.log().line("Attached layer " + layer.id() + " (" + entries + " entries) at " + at);
            } finally {
                Files.deleteIfExists(archive);
            }
        }
        return StepResult.SUCCESS;
    }
}
