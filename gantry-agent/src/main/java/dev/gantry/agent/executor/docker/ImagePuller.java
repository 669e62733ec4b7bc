package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.command.PullImageCmd;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AuthConfig;
import com.github.dockerjava.api.model.PullResponseItem;
import dev.gantry.agent.executor.SandboxException;
import dev.gantry.config.plan.Executor.DockerImage;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes an image present: one already on the agent's runtime is used as it is; any other is pulled, with the job's
 * {@code auth} credentials or its {@code aws_auth} login to Amazon ECR if it gives them, its progress in the step output (one line each time a layer's status
 * changes, not every progress tick). A digest-pinned reference ({@code name@sha256:…}) is looked up and pulled by
 * that digest exactly. Used by one task's thread.
 */
final class ImagePuller {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)}?");

    private final DockerClient docker;
    private final EcrLogin ecr;
    private final Map<String, String> variables;
    private final Consumer<String> say;

    ImagePuller(DockerClient docker, EcrLogin ecr, Map<String, String> variables, Consumer<String> say) {
        this.docker = docker;
        this.ecr = ecr;
        this.variables = variables;
        this.say = say;
    }

    /** The image's description, pulling it first (with its credentials) if the runtime lacks it. */
    InspectImageResponse ensure(DockerImage config) throws SandboxException, InterruptedException {
        String image = config.image();
        try {
            InspectImageResponse present = docker.inspectImageCmd(image).exec();
            say.accept("Using image " + image + ", present on this agent (" + shortDigest(present.getId()) + ")");
            return present;
        } catch (NotFoundException missing) {
            pull(config);
        }
        try {
            return docker.inspectImageCmd(image).exec();
        } catch (NotFoundException e) {
            throw new SandboxException("the pull of " + image + " ended but the runtime does not have it");
        }
    }

    private void pull(DockerImage config) throws SandboxException, InterruptedException {
        String image = config.image();
        Reference ref = Reference.parse(image);
        PullImageCmd pull = docker.pullImageCmd(ref.repository()).withTag(ref.tagOrDigest());
        if (config.auth() != null) {
            say.accept("Pulling image " + image + " with the job's credentials");
            pull.withAuthConfig(new AuthConfig().withRegistryAddress(ref.registry())
                    .withUsername(resolve(config.auth().get("username")))
                    .withPassword(resolve(config.auth().get("password"))));
        } else if (config.awsAuth() != null) {
            say.accept("Pulling image " + image + " with an Amazon ECR login (region "
                    + EcrLogin.region(ref.registry(), variables) + ")");
            pull.withAuthConfig(ecr.login(ref.registry(), config.awsAuth(), this::resolve, variables));
        } else {
            say.accept("Pulling image " + image);
        }
        Progress progress = new Progress();
        try {
            pull.exec(progress).awaitCompletion();
        } catch (RuntimeException e) {
            throw new SandboxException("cannot pull " + image + ": " + ContainerSandbox.message(e), e);
        }
        if (progress.error != null) {
            throw new SandboxException("cannot pull " + image + ": " + progress.error);
        }
        say.accept("Pulled image " + image);
    }

    /** {@code $VAR} and {@code ${VAR}} in a credential, from the job's variables; unknown names become empty. */
    String resolve(String value) {
        if (value == null) {
            return null;
        }
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(variables.getOrDefault(m.group(1), "")));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String shortDigest(String id) {
        if (id == null) {
            return "no id";
        }
        String hex = id.startsWith("sha256:") ? id.substring(7) : id;
        return "sha256:" + (hex.length() > 12 ? hex.substring(0, 12) : hex);
    }

    /** The pull's stream: a line when a layer's status changes, and the registry's error if it sends one. */
    private final class Progress extends ResultCallback.Adapter<PullResponseItem> {
        private final Map<String, String> statuses = new HashMap<>();
        private volatile String error;

        @Override
        public void onNext(PullResponseItem item) {
            if (item.isErrorIndicated()) {
                error = item.getErrorDetail() != null && item.getErrorDetail().getMessage() != null
                        ? item.getErrorDetail().getMessage() : item.getError();
                return;
            }
            String status = item.getStatus();
            if (status == null || status.isBlank()) {
                return;
            }
            String id = item.getId() == null ? "" : item.getId();
            if (!status.equals(statuses.put(id, status))) {
                say.accept("  " + (id.isEmpty() ? "" : id + ": ") + status.strip());
            }
        }
    }

    /** An image reference split as the pull API wants it. */
    record Reference(String registry, String repository, String tagOrDigest) {
        static Reference parse(String image) {
            String name = image;
            String tag = "latest";
            int at = image.indexOf('@');
            if (at >= 0) {
                name = image.substring(0, at);
                tag = image.substring(at + 1);
            } else {
                int colon = image.lastIndexOf(':');
                if (colon > image.lastIndexOf('/')) {
                    name = image.substring(0, colon);
                    tag = image.substring(colon + 1);
                }
            }
            int slash = name.indexOf('/');
            String first = slash < 0 ? "" : name.substring(0, slash);
            boolean hasRegistry = first.contains(".") || first.contains(":") || first.equals("localhost");
            return new Reference(hasRegistry ? first : "docker.io", name, tag);
        }
    }
}
