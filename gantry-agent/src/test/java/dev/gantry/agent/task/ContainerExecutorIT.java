package dev.gantry.agent.task;

import static dev.gantry.agent.testing.Assignments.image;
import static dev.gantry.agent.testing.Assignments.job;
import static dev.gantry.agent.testing.Assignments.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.gantry.agent.executor.docker.DockerExecutor;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.testing.Assignments;
import dev.gantry.agent.testing.FakeAgentApi.FakeTask;
import dev.gantry.agent.testing.FakeEcr;
import dev.gantry.config.plan.Executor.Docker;
import dev.gantry.config.plan.Executor.DockerImage;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.Step;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks in real containers, through the Docker Engine API of the Podman service that {@code bin/containers setup}
 * starts ({@code DOCKER_HOST}), on the stand-in images it builds from Debian packages: {@code cimg/base:2024.01},
 * {@code cimg/python:3.12} and the service image {@code cimg/postgres:15.0}.
 */
class ContainerExecutorIT {
    static final Step.When ON_SUCCESS = Step.When.ON_SUCCESS;
    static final String TOKEN = "gnt_agent_0123456789abcdefSECRET";
    static URI host;

    @TempDir
    Path work;
    @TempDir
    Path gantryHome;
    TaskHarness harness;

    /** Amazon ECR for aws_auth: its one key logs in to the test registry. */
    static final String ECR_KEY_ID = "AKIAGANTRYTEST000001";
    static final String ECR_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYgantrytest";
    static FakeEcr ecr;

    @BeforeAll
    static void findRuntime() throws Exception {
        host = DockerExecutor.findHost(System.getenv()).orElseThrow(() -> new AssertionError(
                "no container runtime: run bin/containers setup and export the DOCKER_HOST it prints"));
        ecr = new FakeEcr(Map.of(ECR_KEY_ID, ECR_SECRET), "gantry", "gantry-registry-secret");
    }

    @AfterAll
    static void stopEcr() {
        ecr.close();
    }

    @BeforeEach
    void start() throws Exception {
        Files.writeString(gantryHome.resolve("admin-token"), TOKEN);
        Map<String, String> agentEnvironment = new HashMap<>(System.getenv());
        agentEnvironment.put("GANTRY_AGENT_TOKEN", TOKEN);
        agentEnvironment.put("GANTRY_HOME", gantryHome.toString());
        harness = new TaskHarness(work, new DockerExecutor(host, "it-agent", ecr.endpoint()),
                agentEnvironment);
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    @Test
    void steps_run_in_the_image_as_its_user_with_the_image_and_job_environment() throws Exception {
        ObjectNode a = Assignments.of(job("in-image", List.of(image("cimg/python:3.12", Map.of("FROM_CONFIG", "yes"))),
                List.of(run("Where", "echo uid=$(id -u) home=$HOME pwd=$(pwd) image=$STANDIN_IMAGE config=$FROM_CONFIG"
                        + " job=$JOB_VAR; python3 -c 'print(\"python\", 6 * 7)'; command -v circleci"))),
                "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText())
                .contains("Executor: docker", "uid=3434 home=/home/circleci pwd=/home/circleci/project "
                        + "image=cimg/python config=yes job=from-job", "python 42", "/.gantry/bin/circleci");
    }

    @Test
    void what_a_step_appends_to_bash_env_every_later_bash_step_sees_as_orbs_expect() throws Exception {
        ObjectNode a = Assignments.of(job("bash-env", List.of(image("cimg/base:2024.01", Map.of())),
                List.of(run("Export", "echo 'export GREETING=\"from an earlier step\"' >> \"$BASH_ENV\""),
                        run("Use", "echo \"greeting: $GREETING\"; echo \"bash_env: $BASH_ENV\""))),
                "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText())
                .contains("greeting: from an earlier step", "bash_env: /tmp/.bash_env-gantry");
    }

    @Test
    void a_step_s_output_arrives_whole_and_in_order() throws Exception {
        ObjectNode a = Assignments.of(job("loud", List.of(image("cimg/base:2024.01", Map.of())),
                List.of(run("Count", "for i in $(seq 1 5000); do echo line-$i; echo err-$i >&2; done"))),
                "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        List<String> lines = harness.api.task(Assignments.jobId(a)).outputText().lines()
                .filter(l -> l.startsWith("line-")).toList();
        assertThat(lines).hasSize(5000);
        for (int i = 0; i < lines.size(); i++) {
            assertThat(lines.get(i)).isEqualTo("line-" + (i + 1));
        }
    }

    @Test
    void the_resource_class_limits_the_primary_container_s_memory_and_cpu() throws Exception {
        ObjectNode a = Assignments.sized(Assignments.of(job("small", List.of(image("cimg/base:2024.01", Map.of())),
                List.of(run("Limits", "cat /sys/fs/cgroup/memory.max 2>/dev/null"
                        + " || cat /sys/fs/cgroup/memory/memory.limit_in_bytes; nproc"))), "", "main", "abc"), 1, 512);

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).contains("\n536870912\n");
    }

    @Test
    void the_config_s_user_command_and_service_name_are_honoured() throws Exception {
        DockerImage primary = new DockerImage("cimg/base:2024.01", null, null, List.of("sleep", "3600"), "root",
                Map.of(), null, null);
        DockerImage service = new DockerImage("cimg/postgres:15.0", "db", null, null, null,
                Map.of("POSTGRES_PASSWORD", "secret"), null, null);
        ObjectNode a = Assignments.of(job("options", List.of(primary, service), List.of(run("Look",
                "echo uid=$(id -u); ps -eo args | grep -x 'sleep 3600'; getent hosts db"))),
                "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        String output = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(outcome).as(output).contains(TaskOutcome.SUCCESS);
        assertThat(output).contains("uid=0\n", "\nsleep 3600\n").containsPattern("127\\.0\\.0\\.1\\s+db");
    }

    @Test
    void a_task_s_directory_is_private_to_the_agent_and_its_output_log_is_0600() throws Exception {
        ObjectNode a = Assignments.of(job("private", List.of(image("cimg/base:2024.01", Map.of())),
                List.of(run("Wait", "echo started; sleep 600"))), "", "main", "abc");
        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(60)).until(() -> harness.api.task(Assignments.jobId(a)) != null
                && harness.api.task(Assignments.jobId(a)).outputText().contains("started"));

        Path dir;
        try (var dirs = Files.list(work)) {
            dir = dirs.filter(d -> d.getFileName().toString().startsWith("job-")).findFirst().orElseThrow();
        }
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("output.log")))).isEqualTo("rw-------");

        harness.api.task(Assignments.jobId(a)).cancel = true;
        assertThat(running.get(60, TimeUnit.SECONDS)).contains(TaskOutcome.CANCELED);
        assertThat(dir).as("removed when the task ends").doesNotExist();
    }

    @Test
    void a_service_database_is_reached_on_localhost() throws Exception {
        ObjectNode a = Assignments.of(job("with-db", List.of(image("cimg/python:3.12", Map.of()),
                image("cimg/postgres:15.0", Map.of("POSTGRES_USER", "app", "POSTGRES_PASSWORD", "secret",
                        "POSTGRES_DB", "appdb"))), List.of(run("Query",
                "for i in $(seq 120); do pg_isready -q -h localhost -p 5432 && break; sleep 0.5; done\n"
                        + "PGPASSWORD=secret psql -h localhost -U app -d appdb -tAc 'select 40 + 2'"))),
                "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).contains("Started service container "
                + "cimg/postgres:15.0", "\n42\n");
    }

    @Test
    void caches_workspaces_artifacts_and_tests_cross_images_inside_the_containers() throws Exception {
        ObjectNode producer = Assignments.of(job("build", List.of(image("cimg/base:2024.01", Map.of())), List.of(
                run("Make", "mkdir -p ~/.cache/tool dist/sub reports && echo cached > ~/.cache/tool/a.txt"
                        + " && echo lock > lock.txt && echo built > dist/sub/app.sh && chmod +x dist/sub/app.sh"
                        + " && echo '<testsuite><testcase classname=\"A\" name=\"ok\" time=\"1.5\"/></testsuite>'"
                        + " > reports/junit.xml"),
                new Step.SaveCache("Save", "tools-{{ checksum \"lock.txt\" }}", List.of("~/.cache/tool"), ON_SUCCESS),
                new Step.PersistToWorkspace("Persist", ".", List.of("dist/*/*.sh"), ON_SUCCESS),
                new Step.StoreArtifacts("Artifacts", "dist", "out", ON_SUCCESS),
                new Step.StoreTestResults("Tests", "reports", ON_SUCCESS))), "", "main", "abc");
        assertThat(harness.run(producer)).contains(TaskOutcome.SUCCESS);
        FakeTask first = harness.api.task(Assignments.jobId(producer));
        assertThat(first.artifacts).containsOnlyKeys("out/sub/app.sh");
        assertThat(first.tests).extracting(t -> t.path("name").asText()).containsExactly("ok");

        ObjectNode consumer = Assignments.of(job("test", List.of(image("cimg/python:3.12", Map.of())), List.of(
                new Step.RestoreCache("Restore", List.of("tools-"), ON_SUCCESS),
                new Step.AttachWorkspace("Attach", "/tmp/ws", ON_SUCCESS),
                run("Use", "cat ~/.cache/tool/a.txt /tmp/ws/dist/sub/app.sh && test -x /tmp/ws/dist/sub/app.sh"
                        + " && stat -c 'owner=%U' ~/.cache/tool/a.txt /tmp/ws/dist/sub/app.sh"))), "", "main", "def");
        assertThat(harness.run(consumer)).contains(TaskOutcome.SUCCESS);

        String output = harness.api.task(Assignments.jobId(consumer)).outputText();
        assertThat(output).contains("cached\nbuilt\n", "owner=circleci\nowner=circleci");
        assertThat(Path.of("/tmp/ws")).as("nothing lands on the agent's host").doesNotExist();
    }

    @Test
    void checkout_copies_the_agent_s_clone_into_the_container() throws Exception {
        Path repo = Files.createDirectories(work.resolve("origin"));
        git(repo, "init", "-q", "-b", "main");
        Files.writeString(repo.resolve("hello.txt"), "hello from git\n");
        git(repo, "add", ".");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "first");
        String sha = new String(new ProcessBuilder("git", "-C", repo.toString(), "rev-parse", "HEAD").start()
                .getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        ObjectNode a = Assignments.of(job("checkout", List.of(image("cimg/base:2024.01", Map.of())), List.of(
                new Step.Checkout("Checkout", null, ON_SUCCESS),
                run("Look", "cat hello.txt && git log -1 --format=%s && stat -c 'owner=%U' hello.txt"))),
                repo.toString(), "main", sha);

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).contains("hello from git\nfirst\n",
                "owner=circleci");
    }

    @Test
    void cancel_kills_the_step_and_removes_the_containers() throws Exception {
        ObjectNode a = Assignments.of(job("canceled", List.of(image("cimg/base:2024.01", Map.of()),
                image("cimg/base:2024.01", Map.of())), List.of(run("Wait", "echo started; sleep 600"),
                run("Never", "echo never"))), "", "main", "abc");
        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(60)).until(() -> harness.api.task(Assignments.jobId(a)) != null
                && harness.api.task(Assignments.jobId(a)).outputText().contains("started"));
        assertThat(containersOf(Assignments.jobId(a))).hasSize(2);

        harness.api.task(Assignments.jobId(a)).cancel = true;

        assertThat(running.get(60, TimeUnit.SECONDS)).contains(TaskOutcome.CANCELED);
        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).doesNotContain("never");
        assertThat(containersOf(Assignments.jobId(a))).isEmpty();
    }

    @Test
    void a_lost_lease_kills_the_step_and_removes_the_containers_without_completing_the_task() throws Exception {
        ObjectNode a = Assignments.of(job("lost", List.of(image("cimg/base:2024.01", Map.of()),
                image("cimg/base:2024.01", Map.of())), List.of(run("Wait", "echo started; sleep 600"))),
                "", "main", "abc");
        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(60)).until(() -> harness.api.task(Assignments.jobId(a)) != null
                && harness.api.task(Assignments.jobId(a)).outputText().contains("started"));
        assertThat(containersOf(Assignments.jobId(a))).hasSize(2);

        harness.api.task(Assignments.jobId(a)).revoked = true; // the server gave the task to another agent

        assertThat(running.get(60, TimeUnit.SECONDS)).as("nothing more is sent about it").isEmpty();
        assertThat(harness.api.task(Assignments.jobId(a)).status()).isNull();
        assertThat(containersOf(Assignments.jobId(a))).isEmpty();
    }

    @Test
    void circleci_tests_split_by_timings_balances_four_nodes_from_the_stored_timings() throws Exception {
        Random random = new Random(28);
        Map<String, Double> seconds = new java.util.TreeMap<>();
        for (int i = 0; i < 240; i++) {
            // heavy-tailed, as real suites are: most tests take a second, a few take minutes
            double duration = Math.min(300, 0.2 / Math.pow(1 - random.nextDouble(), 1 / 1.3));
            seconds.put(String.format("tests/test_%03d.py", i), duration);
            harness.api.timings.add(Map.of("file", String.format("tests/test_%03d.py", i), "classname",
                    "test_" + i, "name", "test", "run_time", duration));
        }
        ObjectNode job = Assignments.of(job("split", List.of(image("cimg/python:3.12", Map.of())), List.of(
                run("Make the suite", "mkdir -p tests && for i in $(seq -f '%03g' 0 239); do"
                        + " touch tests/test_$i.py; done"),
                run("Split", "circleci tests glob 'tests/**/*.py' | circleci tests split --split-by=timings"
                        + " | sed 's/^/MINE /'"))), "", "main", "abc");
        List<Double> totals = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int node = 0; node < 4; node++) {
            ObjectNode a = Assignments.node(job, node, 4);
            assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);
            List<String> mine = harness.api.task(Assignments.jobId(a), node).outputText().lines()
                    .filter(l -> l.startsWith("MINE ")).map(l -> l.substring(5)).toList();
            for (String name : mine) {
                assertThat(seen.add(name)).as("%s on one node only; node %d has %s", name, node, mine).isTrue();
            }
            totals.add(mine.stream().mapToDouble(seconds::get).sum());
        }
        assertThat(seen).isEqualTo(seconds.keySet());
        double mean = totals.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        assertThat(totals.stream().mapToDouble(Double::doubleValue).max().orElseThrow())
                .as("the slowest node against the mean of %s", totals).isLessThanOrEqualTo(1.15 * mean);
    }

    /** Makes a tiny image in the job's own engine out of the job's dash and libc: no registry is reachable here. */
    static final String MINI_IMAGE = "mkdir -p r && cp --parents /bin/sh /lib/x86_64-linux-gnu/libc.so.6"
            + " /lib64/ld-linux-x86-64.so.2 r/ && tar -C r -c . | docker import - mini:1 >/dev/null\n";

    @Test
    void setup_remote_docker_gives_the_job_an_engine_of_its_own_that_builds_and_runs() throws Exception {
        ObjectNode a = Assignments.of(job("remote", List.of(image("cimg/base:2024.01", Map.of())), List.of(
                new Step.SetupRemoteDocker("Remote", null, false, ON_SUCCESS),
                run("Build and run", MINI_IMAGE
                        + "printf 'FROM mini:1\\nRUN echo built-in-the-job > /built\\nCMD [\"/bin/sh\", \"-c\","
                        + " \"read x < /built; echo $x\"]\\n' > Dockerfile\n"
                        + "docker build -q -t made:1 . >/dev/null && docker run --rm made:1\n"
                        + "docker run --rm -v /:/host mini:1 /bin/sh -c 'if [ -e /host" + gantryHome
                        + " ] || [ -e /host/run/gantry-containers ]; then echo ESCAPED; else echo contained; fi'"))),
                "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        String output = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(outcome).as(output).contains(TaskOutcome.SUCCESS);
        assertThat(output).contains("DOCKER_HOST=tcp://127.0.0.1:2375", "built-in-the-job", "contained")
                .doesNotContain("ESCAPED");
        assertThat(containersOf(Assignments.jobId(a))).as("the engine goes with the job").isEmpty();
    }

    @Test
    void a_machine_job_runs_in_the_machine_image_with_sudo_and_its_own_docker() throws Exception {
        ObjectNode a = Assignments.of(Assignments.machineJob("vm", "ubuntu-2204:2024.01.1", List.of(run("Look",
                "echo user=$(id -un); sudo -n true && echo sudo-ok\n" + MINI_IMAGE
                        + "docker run --rm mini:1 /bin/sh -c 'echo hello from a nested container'"))),
                "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        String output = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(outcome).as(output).contains(TaskOutcome.SUCCESS);
        assertThat(output).contains("Executor: machine, emulated", "user=circleci", "sudo-ok",
                "hello from a nested container");
    }

    /** The test registry of {@code bin/containers setup}: plain HTTP on loopback, with a password. */
    static final String PRIVATE = "127.0.0.1:5000/gantry/private";

    @Test
    void an_image_behind_a_password_is_pulled_with_the_job_s_credentials_by_tag_and_by_digest() throws Exception {
        String digest = Files.readString(stateDir().resolve("registry-digest")).strip();
        for (String reference : List.of(PRIVATE + ":1", PRIVATE + "@" + digest)) {
            forget(reference);
            ObjectNode a = Assignments.of(privateJob(reference, "gantry-registry-secret"), "", "main", "abc");
            try {
                Optional<TaskOutcome> outcome = harness.run(a);

                String output = harness.api.task(Assignments.jobId(a)).outputText();
                assertThat(outcome).as(output).contains(TaskOutcome.SUCCESS);
                assertThat(output).contains("Pulling image " + reference + " with the job's credentials",
                        ": Download complete", "Pulled image " + reference, "in the private image");
            } finally {
                forget(reference);
            }
        }
    }

    @Test
    void a_wrong_password_is_an_infrastructure_failure_with_the_registry_s_words() throws Exception {
        forget(PRIVATE + ":1");
        ObjectNode a = Assignments.of(privateJob(PRIVATE + ":1", "not-the-password"), "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.INFRASTRUCTURE_FAIL);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText())
                .contains("cannot pull " + PRIVATE + ":1", "unauthorized: authentication required");
    }

    @Test
    void an_image_with_aws_auth_is_pulled_with_a_login_from_amazon_ecr() throws Exception {
        forget(PRIVATE + ":1");
        ObjectNode a = Assignments.of(ecrJob(PRIVATE + ":1", ECR_SECRET), "", "main", "abc");
        try {
            Optional<TaskOutcome> outcome = harness.run(a);

            String output = harness.api.task(Assignments.jobId(a)).outputText();
            assertThat(outcome).as(output).contains(TaskOutcome.SUCCESS);
            assertThat(output).contains("Pulling image " + PRIVATE + ":1 with an Amazon ECR login (region eu-west-1)",
                    "Pulled image " + PRIVATE + ":1", "in the private image").doesNotContain(ECR_SECRET);
            assertThat(ecr.calls()).last().isEqualTo(new FakeEcr.Call(ECR_KEY_ID, "eu-west-1", 200));
        } finally {
            forget(PRIVATE + ":1");
        }
    }

    @Test
    void a_wrong_aws_secret_is_an_infrastructure_failure_with_amazon_s_words() throws Exception {
        forget(PRIVATE + ":1");
        ObjectNode a = Assignments.of(ecrJob(PRIVATE + ":1", "not-the-secret"), "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.INFRASTRUCTURE_FAIL);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText())
                .contains("cannot log in to Amazon ECR for 127.0.0.1:5000 (region eu-west-1)",
                        "The request signature we calculated does not match the signature you provided");
        assertThat(ecr.calls()).last().isEqualTo(new FakeEcr.Call(ECR_KEY_ID, "eu-west-1", 403));
    }

    /** A job in {@code image} with aws_auth, its secret in a variable of the job and its region in AWS_REGION. */
    private static PlanJob ecrJob(String image, String secret) {
        DockerImage primary = new DockerImage(image, null, null, null, null, Map.of(), null,
                Map.of("aws_access_key_id", ECR_KEY_ID, "aws_secret_access_key", "$ECR_AWS_SECRET_ACCESS_KEY"));
        return new PlanJob("ecr", "ecr", JobType.BUILD, Map.of(), "medium", new Docker(List.of(primary)), 1,
                null, null, Map.of("ECR_AWS_SECRET_ACCESS_KEY", secret, "AWS_REGION", "eu-west-1"), List.of(), null,
                Map.of(), List.of(run("Hello", "echo in the private image")));
    }

    /** A job in {@code image} whose auth names the password through a variable of the job, as configs do. */
    private static PlanJob privateJob(String image, String password) {
        DockerImage primary = new DockerImage(image, null, null, null, null, Map.of(),
                Map.of("username", "gantry", "password", "${REGISTRY_PASSWORD}"), null);
        return new PlanJob("private", "private", JobType.BUILD, Map.of(), "medium", new Docker(List.of(primary)), 1,
                null, null, Map.of("REGISTRY_PASSWORD", password), List.of(), null, Map.of(),
                List.of(run("Hello", "echo in the private image")));
    }

    /** Removes the image from the engine, so that the next job must pull it. */
    private static void forget(String reference) {
        try {
            docker().removeImageCmd(reference).withForce(true).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException absent) {
            // not pulled yet
        }
    }

    /** Where {@code bin/containers setup} keeps its state: beside the containers.conf it exports. */
    private static Path stateDir() {
        String conf = System.getenv("CONTAINERS_CONF");
        assertThat(conf).as("CONTAINERS_CONF from bin/containers setup (bin/test exports it)").isNotBlank();
        return Path.of(conf).getParent();
    }

    @Test
    void a_job_finds_no_agent_token_and_no_gantry_home_file_anywhere() throws Exception {
        // The step's own command line must not hold what it looks for, or it would find itself: each needle is
        // written in two halves and joined at run time.
        int half = TOKEN.length() / 2;
        String search = "token='" + TOKEN.substring(0, half) + "''" + TOKEN.substring(half) + "'\n"
                + "prefix='GANT''RY_'\n"
                + "found=0\n"
                + "for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do\n"
                + "  if tr '\\0' '\\n' < $f 2>/dev/null | grep -q -e \"$token\" -e \"^${prefix}\"; then\n"
                + "    echo \"FOUND in $f\"; found=1\n"
                + "  fi\n"
                + "done\n"
                + "if env | grep -e \"$token\" -e \"^${prefix}\"; then echo FOUND in env; found=1; fi\n"
                + "if grep -rsl --exclude-dir=proc --exclude-dir=sys -e \"$token\" /; then echo FOUND in files; found=1; fi\n"
                + "if [ -e '" + gantryHome + "' ]; then echo FOUND the agent home; found=1; fi\n"
                + "echo searched found=$found; exit $found";
        ObjectNode a = Assignments.of(job("snoop", List.of(image("cimg/base:2024.01", Map.of())),
                List.of(run("Search", search))), "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        String output = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(outcome).as(output).contains(TaskOutcome.SUCCESS);
        assertThat(output).contains("searched found=0").doesNotContain("FOUND");
    }

    static final String API_TOKEN = "s3cr3t-value-4711";
    /** A value that URL encoding changes. */
    static final String DB_PASSWORD = "p@ss word/+&=";

    @Test
    void secrets_reach_only_the_primary_s_steps_and_are_masked_in_all_the_agent_records_and_sends() throws Exception {
        Map<String, String> secrets = new LinkedHashMap<>();
        secrets.put("API_TOKEN", API_TOKEN);
        secrets.put("SHORT", "abc");
        secrets.put("DB_PASSWORD", DB_PASSWORD);
        // No command line may hold a whole secret, so the steps name the token's value only in two halves.
        String halves = "'s3cr3t-''value-4711'";
        ObjectNode a = Assignments.withSecrets(Assignments.of(job("secrets", List.of(
                image("cimg/base:2024.01", Map.of()), image("cimg/base:2024.01", Map.of("SERVICE_VAR", "yes"))),
                List.of(run("Print", "[ \"$API_TOKEN\" = " + halves + " ] && echo the-value-arrived\n"
                                + "echo \"token=$API_TOKEN short=$SHORT\"\n"
                                + "printf %s \"$API_TOKEN\" | base64\n"
                                + "echo \"$API_TOKEN\" | base64\n"
                                + "printf %s \"$DB_PASSWORD\" | jq -sRr @uri\n"
                                + "printf %s \"$DB_PASSWORD\" | jq -sRr @uri | sed 's/%20/+/g'\n"
                                + "printf 's3cr3t-'; sleep 0.3; printf 'value-4711\\n'"),
                        run("No command line holds it", "for f in /proc/[0-9]*/cmdline; do\n"
                                + "  if tr '\\0' '\\n' < $f 2>/dev/null | grep -qF -e \"$API_TOKEN\"; then echo \"FOUND in $f\"; fi\n"
                                + "done; echo command-lines-searched"),
                        run("Report", "mkdir -p reports art && echo not-xml > \"reports/$API_TOKEN.xml\"\n"
                                + "echo \"<testsuite><testcase classname='A' name='leaks'><failure message='got $API_TOKEN'/>"
                                + "</testcase></testsuite>\" > reports/junit.xml\n"
                                + "echo x > \"art/$API_TOKEN.txt\""),
                        new Step.StoreTestResults("Tests", "reports", ON_SUCCESS),
                        new Step.StoreArtifacts("Artifacts", "art", "out", ON_SUCCESS),
                        run("Wait", "echo all-done; sleep 600"))), "", "main", "abc"), secrets);
        List<String> forms = List.of(API_TOKEN, base64(API_TOKEN), base64(API_TOKEN + "\n"),
                base64(API_TOKEN).replace("=", ""), DB_PASSWORD, "p%40ss%20word%2F%2B%26%3D", "p%40ss+word%2F%2B%26%3D");
        String jobId = Assignments.jobId(a);
        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(90)).until(() -> harness.api.task(jobId) != null
                && harness.api.task(jobId).outputText().contains("all-done"));

        List<String> containers = containersOf(jobId);
        assertThat(containers).as("the primary and the service").hasSize(2);
        for (String id : containers) {
            List<String> env = List.of(docker().inspectContainerCmd(id).exec().getConfig().getEnv());
            assertThat(String.join("\n", env)).as("container %s's own environment", id)
                    .doesNotContain("API_TOKEN", "s3cr3t", "DB_PASSWORD");
        }
        Path outputLog;
        try (var dirs = Files.list(work)) {
            outputLog = dirs.filter(d -> d.getFileName().toString().startsWith("job-")).findFirst().orElseThrow()
                    .resolve("output.log");
        }
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(outputLog)))
                .isEqualTo("rw-------");
        assertThat(new String(Files.readAllBytes(outputLog), StandardCharsets.UTF_8)).contains("token=********")
                .doesNotContain(forms);
        harness.api.task(jobId).cancel = true;
        assertThat(running.get(60, TimeUnit.SECONDS)).contains(TaskOutcome.CANCELED);

        FakeTask task = harness.api.task(jobId);
        String output = task.outputText();
        assertThat(output).contains("the-value-arrived\ntoken=******** short=abc\n"
                        + "********\n********\n********\n********\n********\n",
                "command-lines-searched", "Skipped ********.xml: ").doesNotContain("FOUND").doesNotContain(forms);
        assertThat(task.tests).extracting(t -> t.path("message").asText()).containsExactly("got ********");
        assertThat(task.artifacts).containsOnlyKeys("out/********.txt");
    }

    private static String base64(String value) {
        return java.util.Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void an_image_that_cannot_be_pulled_is_an_infrastructure_failure_with_the_registry_s_message() throws Exception {
        ObjectNode a = Assignments.of(job("no-image", List.of(image("127.0.0.1:9/gantry/none:1", Map.of())),
                List.of(run("Never", "echo never"))), "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.INFRASTRUCTURE_FAIL);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(task.outputText()).contains("Pulling image 127.0.0.1:9/gantry/none:1",
                "Cannot run the job: cannot pull 127.0.0.1:9/gantry/none:1").doesNotContain("never");
    }

    private static List<String> containersOf(String jobId) {
        return docker().listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of("dev.gantry.agent", "it-agent")).exec().stream()
                .filter(c -> c.getLabels().getOrDefault("dev.gantry.task", "").startsWith("job-" + jobId.substring(0, 8)))
                .map(c -> c.getId()).toList();
    }

    private static DockerClient docker() {
        var config = DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host.toString()).build();
        return DockerClientImpl.getInstance(config, new ZerodepDockerHttpClient.Builder()
                .dockerHost(config.getDockerHost()).build());
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        assertThat(new ProcessBuilder(command).inheritIO().start().waitFor()).isZero();
    }
}
