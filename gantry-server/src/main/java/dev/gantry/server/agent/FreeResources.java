package dev.gantry.server.agent;

/** What an agent has free when it claims: the most CPU and memory the task it gets may need. */
public record FreeResources(int cpu, int memoryMb) {
    public FreeResources {
        if (cpu < 0 || memoryMb < 0) {
            throw new IllegalArgumentException("free resources cannot be negative, got cpu " + cpu + ", memory "
                    + memoryMb + " MB");
        }
    }
}
