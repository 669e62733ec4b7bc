package dev.gantry.scheduler;

import java.util.Objects;

/**
 * A named size a job asks for in its config ({@code resource_class: large}): what it demands of an instance, and what
 * a minute of it costs in credits.
 */
public record ResourceClass(String name, int vcpu, int memoryMb, int diskGb, int creditsPerMinute) {
    public ResourceClass {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a resource class needs a name");
        }
        if (vcpu <= 0 || memoryMb <= 0 || diskGb <= 0) {
            throw new IllegalArgumentException("resource class '" + name + "' must demand some of every resource, got "
                    + vcpu + " vCPU / " + memoryMb + " MB / " + diskGb + " GB");
        }
        if (creditsPerMinute < 0) {
            throw new IllegalArgumentException("resource class '" + name + "' cannot cost " + creditsPerMinute
                    + " credits per minute");
        }
    }

    /** What a job of this class takes from the instance it runs on. */
    public Resources demand() {
        return new Resources(vcpu, memoryMb, diskGb);
    }
}
