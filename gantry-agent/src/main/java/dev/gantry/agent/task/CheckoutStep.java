package dev.gantry.agent.task;

import dev.gantry.agent.protocol.Assignment;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code checkout}: the agent clones the project's {@code vcs_url} on its own side (so a job's image needs no git,
 * and a repository only the agent can reach, a local path among them, works), checks out the pipeline's revision,
 * on a local branch of the pipeline's branch name when there is one ({@code git checkout -B BRANCH SHA}, as CircleCI
 * does) and detached otherwise, then copies the result into the working directory (or {@code path}) in the sandbox,
 * over a repository already there. A revision that no branch reaches (a rerun of a commit force-pushed away) is
 * fetched by its id. Each git command is echoed into the output before it runs.
 */
final class CheckoutStep {
    /** Succeeds when the directory is missing, empty or already a repository: anything else is not ours to mix. */
    private static final String TARGET_FITS = "[ ! -e \"$1\" ] || [ -e \"$1/.git\" ] || [ -z \"$(ls -A \"$1\")\" ]";

    private CheckoutStep() {
    }

    static StepResult run(StepContext ctx, Step.Checkout step) throws IOException, InterruptedException {
        Assignment.Project project = ctx.assignment().project();
        Assignment.Pipeline pipeline = ctx.assignment().pipeline();
        if (project.vcsUrl() == null || project.vcsUrl().isBlank()) {
            ctx.log().line("The project has no repository URL to check out.");
            return StepResult.FAILED;
        }
        Path target = step.path() == null ? ctx.workingDirectory() : ctx.path(step.path());
        StepResult fits = await(ctx, ProcessRun.start(ctx.sandbox(), List.of("sh", "-c", TARGET_FITS, "sh",
                target.toString()), Path.of("/"), ctx.environment(), ctx.log()));
        if (!fits.succeeded()) {
            ctx.log().line("Directory " + target + " is not empty and not a git repository: cannot check out into it.");
            return StepResult.FAILED;
        }
        Path clone = ctx.dir().newStaging();
        StepResult cloned = git(ctx, List.of("git", "clone", "--no-checkout", project.vcsUrl(), "."), clone);
        if (!cloned.succeeded()) {
            return cloned;
        }
        String revision = pipeline.revision();
        List<String> checkout;
        if (revision == null || revision.isBlank()) {
            checkout = List.of("git", "checkout", pipeline.branch() == null ? "HEAD" : pipeline.branch());
        } else {
            if (!git(ctx, List.of("git", "rev-parse", "--quiet", "--verify", revision + "^{commit}"), clone)
                    .succeeded()) {
                // A rerun of a commit force-pushed away since, or one no branch has yet: servers hand it out by id.
                ctx.log().line("No branch of the clone has " + revision + "; fetching it by its id.");
                StepResult byId = git(ctx, List.of("git", "fetch", "--force", "origin", revision), clone);
                if (!byId.succeeded()) {
                    return byId;
                }
            }
            checkout = pipeline.branch() != null
                    ? List.of("git", "checkout", "--force", "-B", pipeline.branch(), revision)
                    : List.of("git", "checkout", "--force", "--detach", revision);
        }
        StepResult checkedOut = git(ctx, checkout, clone);
        if (!checkedOut.succeeded()) {
            return checkedOut;
        }
        StepResult head = git(ctx, List.of("git", "--no-pager", "log", "-1", "--format=HEAD is now at %h %s"), clone);
        if (!head.succeeded()) {
            return head;
        }
        ctx.sandbox().write(clone, target);
        ctx.log().line("Checked out into " + target);
        return StepResult.SUCCESS;
    }

    /** Echoes {@code command} into the output, then runs it on the agent's side in {@code dir}. */
    private static StepResult git(StepContext ctx, List<String> command, Path dir)
            throws IOException, InterruptedException {
        ctx.log().line("$ " + withoutCredentials(String.join(" ", command)));
        Map<String, String> env = CircleEnvironment.withStep(ctx.agentSide().baseEnvironment(),
                Map.of("GIT_TERMINAL_PROMPT", "0", "HOME", ctx.agentSide().home().toString()));
        return await(ctx, ProcessRun.start(ctx.agentSide(), command, dir, env, ctx.log()));
    }

    /** {@code text} with the {@code user:password@} of any {@code scheme://user:password@host} URL in it dropped. */
    static String withoutCredentials(String text) {
        return CREDENTIALS.matcher(text).replaceAll("$1");
    }

    /**
     * What a repository URL carries that job output must not show: its password (or token) and its whole
     * {@code user:password}; none when it carries none.
     */
    static List<String> credentials(String url) {
        Matcher m = CREDENTIALS.matcher(url == null ? "" : url);
        if (!m.find()) {
            return List.of();
        }
        String userInfo = m.group(2);
        int colon = userInfo.indexOf(':');
        return colon < 0 ? List.of(userInfo) : List.of(userInfo, userInfo.substring(colon + 1));
    }

    private static final Pattern CREDENTIALS = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/@\\s]+)@");

    private static StepResult await(StepContext ctx, ProcessRun process) throws InterruptedException {
        return process.await(ctx.control(), RunStep.DEFAULT_NO_OUTPUT_TIMEOUT, ctx.settings().killGrace(), ctx.log());
    }
}
