package dev.gantry.server.webhook;

import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.pipeline.PipelineTrigger;
import java.util.Objects;

/** What a forge's delivery asks of Gantry: a pipeline, or nothing, and why not. */
sealed interface ForgeEvent {
    /**
     * A pipeline on {@code ref} at {@code revision}, triggered by the forge user {@code actor}.
     *
     * @param vcs what the forge said about the change, with its provider
     */
    record Build(GitRef ref, String revision, String actor, String actorAvatarUrl, PipelineTrigger.Vcs vcs)
            implements ForgeEvent {
        public Build {
            Objects.requireNonNull(ref, "ref");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(actor, "actor");
            Objects.requireNonNull(vcs, "vcs");
        }
    }

    /** Nothing to build; {@code reason} is for the forge's delivery log. */
    record Ignored(String reason) implements ForgeEvent {
    }
}
