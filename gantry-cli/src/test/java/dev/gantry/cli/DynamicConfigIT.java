package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.gantry.cli.client.GantryClient;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * CircleCI's dynamic config as its users write it, end to end in containers: a setup workflow runs the published
 * path-filtering orb (packed from its source, with the continuation and jq orbs it uses) on the stand-in cimg/base,
 * which diffs the branch against main, merges the chosen config with yq and continues the pipeline through
 * {@code https://<circleci_domain>/api/v2/pipeline/continue} with the job's continuation key. The server serves HTTPS
 * with a certificate of a private CA; the job's image trusts that CA, as a team's own images trust its CA.
 */
class DynamicConfigIT {
    /** The name under which a container reaches the machine it runs on (Podman writes it into /etc/hosts). */
    static final String HOST_FROM_CONTAINERS = "host.containers.internal";
    static final String IMAGE = "gantry-test/base-trusting-ca:1";
    static final Path ORBS = Path.of("../gantry-config/src/test/resources/orbs/circleci");

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    GantryProcesses gantry;
    DockerClient docker;

    @BeforeEach
    void start() throws Exception {
        docker = TestDocker.client();
        Path tls = Files.createDirectories(home.resolve("tls"));
        makeCertificates(tls);
        buildImageTrusting(tls.resolve("ca.pem"));

        int https = GantryProcesses.freePort();
        // Every interface, so that containers reach the server through their bridge's gateway.
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of("GANTRY_HOST", "0.0.0.0",
                "GANTRY_HTTPS_PORT", Integer.toString(https), "GANTRY_TLS_CERT", tls.resolve("server.pem").toString(),
                "GANTRY_TLS_KEY", tls.resolve("server.key").toString()));
        gantry.startServer();
        for (String orb : List.of("jq@3.0.2", "continuation@2.0.1", "path-filtering@2.1.0")) { // what an orb imports first
            GantryClient.Answer put = gantry.admin().put("/api/v2/orbs/circleci/" + orb.replace('@', '/'),
                    Files.readString(ORBS.resolve(orb + ".yml")), "application/yaml");
            assertThat(put.status()).as(put.json().toString()).isIn(200, 201);
        }
        createRepository(HOST_FROM_CONTAINERS + ":" + https);
        assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "monorepo", "repo_url",
                repository.toString())).status()).isEqualTo(201);
    }

    @AfterEach
    void stop() {
        if (gantry != null) {
            gantry.close();
        }
        try {
            docker.removeImageCmd(IMAGE).withForce(true).exec();
        } catch (NotFoundException gone) {
            // never built
        }
    }

    @Test
    void path_filtering_continues_the_pipeline_with_the_workflows_of_the_paths_that_changed() {
        gantry.startAgent("boxed", 2, "docker");
        PipelineProbe probe = new PipelineProbe(gantry::admin, "gantry/local/monorepo");
        GantryClient.Answer triggered = gantry.admin().post("/api/v2/project/gantry/local/monorepo/pipeline",
                Map.of("branch", "feature"));
        assertThat(triggered.status()).isEqualTo(201);
        String pipeline = triggered.json().path("id").asText();

        JsonNode setup = probe.awaitWorkflow(pipeline, null, "success", "failed", "error", "canceled");
        JsonNode filter = probe.jobs(setup).get("path-filtering/filter");
        assertThat(setup.path("status").asText()).as(probe.output(filter, 0)).isEqualTo("success");
        assertThat(probe.output(filter, 0)).contains("Comparing", "src/app.txt", "Generated YAML");

        String app = await().atMost(Duration.ofSeconds(60)).until(() -> workflowId(pipeline, "app"),
                Objects::nonNull);
        JsonNode build = probe.awaitJobs(probe.awaitWorkflow(pipeline, app, "success", "failed"),
                Map.of("build-app", "success")).get("build-app");
        assertThat(probe.output(build, 0)).contains("building the app for feature", "version 2");
        assertThat(gantry.admin().get("/api/v2/pipeline/" + pipeline + "/workflow").json().path("items")
                .findValuesAsText("name")).as("docs did not change").containsExactlyInAnyOrder("setup", "app");
    }

    private String workflowId(String pipeline, String name) {
        for (JsonNode workflow : gantry.admin().get("/api/v2/pipeline/" + pipeline + "/workflow").json()
                .path("items")) {
            if (workflow.path("name").asText().equals(name)) {
                return workflow.path("id").asText();
            }
        }
        return null;
    }

    /** main has the app and its docs; branch feature changes only the app. */
    private void createRepository(String domain) throws IOException {
        Files.createDirectories(repository.resolve(".circleci"));
        Files.createDirectories(repository.resolve("src"));
        Files.createDirectories(repository.resolve("docs"));
        Files.writeString(repository.resolve(".circleci/config.yml"), """
                version: 2.1
                setup: true
                orbs:
                  path-filtering: circleci/path-filtering@2.1
                executors:
                  trusting:
                    docker:
                      - image: %s
                workflows:
                  setup:
                    jobs:
                      - path-filtering/filter:
                          executor: trusting
                          base-revision: main
                          config-path: .circleci/continue_config.yml
                          circleci_domain: %s
                          mapping: |
                            src/.* build-app true
                            docs/.* build-docs true
                """.formatted(IMAGE, domain));
        Files.writeString(repository.resolve(".circleci/continue_config.yml"), """
                version: 2.1
                parameters:
                  build-app: {type: boolean, default: false}
                  build-docs: {type: boolean, default: false}
                jobs:
                  build-app:
                    docker: [{image: cimg/base:2024.01}]
                    steps:
                      - checkout
                      - run: echo "building the app for $CIRCLE_BRANCH"; cat src/app.txt
                  build-docs:
                    docker: [{image: cimg/base:2024.01}]
                    steps:
                      - run: echo "building the docs"
                workflows:
                  app:
                    when: << pipeline.parameters.build-app >>
                    jobs: [build-app]
                  docs:
                    when: << pipeline.parameters.build-docs >>
                    jobs: [build-docs]
                """);
        Files.writeString(repository.resolve("src/app.txt"), "version 1\n");
        Files.writeString(repository.resolve("docs/index.md"), "# The app\n");
        Git.run(repository, "init", "-q", "-b", "main");
        Git.run(repository, "add", "-A");
        Git.run(repository, "commit", "-q", "-m", "app and docs");
        Git.run(repository, "checkout", "-q", "-b", "feature");
        Files.writeString(repository.resolve("src/app.txt"), "version 2\n");
        Git.run(repository, "commit", "-q", "-am", "a change to the app only");
    }

    /** A private CA and a server certificate it signed for {@link #HOST_FROM_CONTAINERS}, made with openssl. */
    private static void makeCertificates(Path dir) throws IOException, InterruptedException {
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                "-days", "2", "-subj", "/CN=Gantry test CA");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                "-subj", "/CN=" + HOST_FROM_CONTAINERS);
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=DNS:" + HOST_FROM_CONTAINERS + ",IP:127.0.0.1\n");
        openssl(dir, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "san.ext");
    }

    private static void openssl(Path dir, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0)
                .as("openssl %s: %s", String.join(" ", arguments), output).isTrue();
    }

    /**
     * {@link #IMAGE}: cimg/base:current whose CA bundle also holds {@code ca}, made without running anything in it
     * (create, copy the bundle out, append, copy it back, commit).
     */
    private void buildImageTrusting(Path ca) throws IOException {
        String container = docker.createContainerCmd("cimg/base:current").exec().getId();
        try {
            String bundle = "/etc/ssl/certs/ca-certificates.crt";
            Path dir = Files.createDirectories(home.resolve("bundle"));
            Path copy = dir.resolve("ca-certificates.crt");
            try (InputStream tar = docker.copyArchiveFromContainerCmd(container, bundle).exec()) {
                Files.write(copy, untarFirst(tar));
            }
            Files.writeString(copy, Files.readString(copy) + Files.readString(ca));
            docker.copyArchiveToContainerCmd(container).withHostResource(copy.toString())
                    .withRemotePath("/etc/ssl/certs").exec();
            String[] repositoryAndTag = IMAGE.split(":");
            docker.commitCmd(container).withRepository(repositoryAndTag[0]).withTag(repositoryAndTag[1]).exec();
        } finally {
            docker.removeContainerCmd(container).withForce(true).exec();
        }
    }

    private static byte[] untarFirst(InputStream tar) throws IOException {
        try (TarArchiveInputStream entries = new TarArchiveInputStream(tar)) {
            TarArchiveEntry entry = entries.getNextEntry();
            if (entry == null) {
                throw new IOException("an empty archive");
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            entries.transferTo(bytes);
            return bytes.toByteArray();
        }
    }
}
