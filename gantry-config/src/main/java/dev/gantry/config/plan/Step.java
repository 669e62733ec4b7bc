package dev.gantry.config.plan;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One expanded step of a job. Every step has a display {@code name} and a {@link When} that says whether it runs
 * after an earlier step failed. Command invocations, {@code when}/{@code unless} steps and {@code steps} parameters
 * are gone: a plan holds only these built-in steps.
 */
public sealed interface Step {

    String name();

    When when();

    /** The config word of this step ({@code run}, {@code save_cache}, …). */
    String kind();

    /** When a step runs, relative to the outcome of the steps before it. */
    enum When {
        ON_SUCCESS("on_success"), ON_FAIL("on_fail"), ALWAYS("always");

        private final String word;

        When(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }

        public static When fromWord(String word) {
            for (When w : values()) {
                if (w.word.equals(word)) {
                    return w;
                }
            }
            return null;
        }
    }

    /**
     * A shell command. {@code shell} and {@code workingDirectory} are null when the job's apply;
     * {@code noOutputTimeout} is null for the default (10 minutes).
     */
    record Run(String name, String command, String shell, Map<String, String> environment, boolean background,
               String workingDirectory, Duration noOutputTimeout, When when) implements Step {
        public Run {
            environment = Maps.frozen(environment);
        }

        @Override
        public String kind() {
            return "run";
        }
    }

    /** Checks out the pipeline's revision; {@code path} null means the working directory. */
    record Checkout(String name, String path, When when) implements Step {
        @Override
        public String kind() {
            return "checkout";
        }
    }

    /** Starts a remote Docker engine for the job; {@code version} null means the default. */
    record SetupRemoteDocker(String name, String version, boolean dockerLayerCaching, When when) implements Step {
        @Override
        public String kind() {
            return "setup_remote_docker";
        }
    }

    /** Adds SSH keys configured on the project; empty fingerprints means all of them. */
    record AddSshKeys(String name, List<String> fingerprints, When when) implements Step {
        public AddSshKeys {
            fingerprints = List.copyOf(fingerprints);
        }

        @Override
        public String kind() {
            return "add_ssh_keys";
        }
    }

    record SaveCache(String name, String key, List<String> paths, When when) implements Step {
        public SaveCache {
            paths = List.copyOf(paths);
        }

        @Override
        public String kind() {
            return "save_cache";
        }
    }

    /** Restores the first cache whose key matches one of {@code keys}, tried in order as prefixes. */
    record RestoreCache(String name, List<String> keys, When when) implements Step {
        public RestoreCache {
            keys = List.copyOf(keys);
        }

        @Override
        public String kind() {
            return "restore_cache";
        }
    }

    record PersistToWorkspace(String name, String root, List<String> paths, When when) implements Step {
        public PersistToWorkspace {
            paths = List.copyOf(paths);
        }

        @Override
        public String kind() {
            return "persist_to_workspace";
        }
    }

    record AttachWorkspace(String name, String at, When when) implements Step {
        @Override
        public String kind() {
            return "attach_workspace";
        }
    }

    /** Uploads {@code path}; {@code destination} null means the path's own name. */
    record StoreArtifacts(String name, String path, String destination, When when) implements Step {
        @Override
        public String kind() {
            return "store_artifacts";
        }
    }

    record StoreTestResults(String name, String path, When when) implements Step {
        @Override
        public String kind() {
            return "store_test_results";
        }
    }
}
