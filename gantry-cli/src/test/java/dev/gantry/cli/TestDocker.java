package dev.gantry.cli;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.gantry.agent.executor.docker.DockerExecutor;

/** The container engine the tests' agents use (the one {@code bin/containers setup} starts), for looking at it. */
final class TestDocker {
    private TestDocker() {
    }

    /** A client of the engine {@code DOCKER_HOST} names; fails saying how to get one when none is set up. */
    static DockerClient client() {
        String host = DockerExecutor.findHost(System.getenv()).orElseThrow(() -> new AssertionError(
                "no container runtime: run bin/containers setup and export the DOCKER_HOST it prints")).toString();
        var config = DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host).build();
        return DockerClientImpl.getInstance(config, new ZerodepDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost()).build());
    }
}
