package dev.gantry.server.orchestrator;

import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** The orchestrator's clock readings, at PostgreSQL's precision so that what it writes reads back equal. */
final class Times {
    private Times() {
    }

    static OffsetDateTime now(InstantSource clock) {
        return clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }
}
