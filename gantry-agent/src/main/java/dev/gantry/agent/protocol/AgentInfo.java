package dev.gantry.agent.protocol;

/** What an agent tells the server about itself at registration. */
public record AgentInfo(String name, int cpu, int memoryMb, int diskGb, String pool, String version) {
}
