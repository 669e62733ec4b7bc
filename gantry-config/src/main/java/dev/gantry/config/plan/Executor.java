package dev.gantry.config.plan;

import java.util.List;
import java.util.Map;

/** Where a job's steps run: containers, a virtual machine, or a macOS machine. */
public sealed interface Executor {

    /** The word CircleCI uses for this kind of executor: docker, machine or macos. */
    String kind();

    /** Containers; the first image is the primary one, where steps run, the rest are services beside it. */
    record Docker(List<DockerImage> images) implements Executor {
        public Docker {
            images = List.copyOf(images);
            if (images.isEmpty()) {
                throw new IllegalArgumentException("a docker executor needs at least one image");
            }
        }

        @Override
        public String kind() {
            return "docker";
        }
    }

    /** A Linux (or Windows) virtual machine. {@code image} may be null for the provider's default image. */
    record Machine(String image, boolean dockerLayerCaching) implements Executor {
        @Override
        public String kind() {
            return "machine";
        }
    }

    /** A macOS machine with the given Xcode version. */
    record Macos(String xcode) implements Executor {
        @Override
        public String kind() {
            return "macos";
        }
    }

    /**
     * One container image. {@code auth} holds {@code username}/{@code password}, {@code awsAuth} the
     * {@code aws_auth} keys ({@code aws_access_key_id}/{@code aws_secret_access_key} or {@code oidc_role_arn}), both
     * as written (usually {@code $VAR} references, resolved at run time); null fields were not given.
     */
    record DockerImage(
            String image,
            String name,
            List<String> entrypoint,
            List<String> command,
            String user,
            Map<String, String> environment,
            Map<String, String> auth,
            Map<String, String> awsAuth) {
        public DockerImage {
            entrypoint = entrypoint == null ? null : List.copyOf(entrypoint);
            command = command == null ? null : List.copyOf(command);
            environment = Maps.frozen(environment);
            auth = auth == null ? null : Maps.frozen(auth);
            awsAuth = awsAuth == null ? null : Maps.frozen(awsAuth);
        }
    }
}
