/**
 * The docker executor: one task's primary and service containers through the Docker Engine API (docker-java over
 * a Unix socket, against Docker or Podman's compatible service), image pulls, steps as {@code exec}s, file transfers
 * through the archive endpoint and the image's {@code tar}, and the job's own unprivileged Docker engine for
 * {@code setup_remote_docker} and {@code machine} jobs. Everything created carries the agent's labels, so a crashed
 * run's leftovers are removed when the agent starts again. See docs/executors.md.
 */
package dev.gantry.agent.executor.docker;
