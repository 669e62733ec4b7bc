package dev.gantry.server.fleet;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.fleet.FleetConfig;
import java.util.Objects;

/**
 * Which pool a job runs in, from its executor: the pool the fleet file pins its image to
 * ({@link FleetConfig#poolForImage}), else {@code macos} for a macOS executor (only a Mac can run it), else
 * {@link Instance#DEFAULT_POOL}. Pins let one image's shortage stall only its own pool. Immutable.
 */
public final class ImagePools {
    /** Where macOS jobs run unless a pin says otherwise. */
    public static final String MACOS_POOL = "macos";

    private final FleetConfig fleet;

    public ImagePools(FleetConfig fleet) {
        this.fleet = Objects.requireNonNull(fleet, "fleet");
    }

    /** @param executorType {@code docker}, {@code machine} or {@code macos}; null for jobs without an executor */
    public String poolOf(String executorType, String image) {
        String pinned = image == null ? Instance.DEFAULT_POOL : fleet.poolForImage(image);
        return pinned.equals(Instance.DEFAULT_POOL) && "macos".equals(executorType) ? MACOS_POOL : pinned;
    }
}
