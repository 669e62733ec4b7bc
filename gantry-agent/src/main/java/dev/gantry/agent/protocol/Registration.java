package dev.gantry.agent.protocol;

import java.time.Duration;

/** What the server answers to {@code POST /register}: the agent's id and the timings it must keep. */
public record Registration(String id, Duration heartbeatInterval, Duration leaseTimeout, Duration pollTimeout) {
}
