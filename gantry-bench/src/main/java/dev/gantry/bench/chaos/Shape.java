package dev.gantry.bench.chaos;

/**
 * The pipelines the chaos suite runs, one project each. Every job appends {@code start} when its work begins and
 * {@code end} as its very last action to the run's trace file ({@code start|end PIPELINE JOB NODE BUILD_NUM
 * EPOCH_MILLIS}), so "ran twice to completion" is read from what really ran, not from the database.
 */
enum Shape {
    /** One job that restores and saves a cache (blobs through the shared bucket). */
    SINGLE("single", "success", """
            jobs:
              one:
                <<: *job
                steps:
                  - restore_cache:
                      keys: [v1-deps]
                  - begin
                  - run: mkdir -p deps && echo cached > deps/marker
                  - save_cache:
                      key: v1-deps
                      paths: [deps]
                  - finish
            workflows:
              single:
                jobs: [one]
            """),
    /** build → three tests that read its workspace → deploy: fan-out and fan-in. */
    FANOUT("fanout", "success", """
            commands:
              check:
                steps:
                  - attach_workspace:
                      at: ws
                  - begin
                  - run: test -f ws/artifact.txt
                  - finish
            jobs:
              build:
                <<: *job
                steps:
                  - begin
                  - run: mkdir -p out && echo built > out/artifact.txt
                  - persist_to_workspace:
                      root: out
                      paths: [artifact.txt]
                  - finish
              test-a:
                <<: *job
                steps: [check]
              test-b:
                <<: *job
                steps: [check]
              test-c:
                <<: *job
                steps: [check]
              deploy:
                <<: *job
                steps: [begin, finish]
            workflows:
              fanout:
                jobs:
                  - build
                  - test-a: {requires: [build]}
                  - test-b: {requires: [build]}
                  - test-c: {requires: [build]}
                  - deploy: {requires: [test-a, test-b, test-c]}
            """),
    /** One job on three parallel nodes. */
    PARALLEL("parallel", "success", """
            jobs:
              split:
                <<: *job
                parallelism: 3
                steps: [begin, finish]
            workflows:
              parallel:
                jobs: [split]
            """),
    /** A job that fails, and one that therefore never runs. */
    FAILING("failing", "failed", """
            jobs:
              broken:
                <<: *job
                steps:
                  - begin
                  - run:
                      name: Fail
                      command: |
                        echo "end @LINE@" >> @TRACE@
                        exit 1
              after:
                <<: *job
                steps: [begin, finish]
            workflows:
              failing:
                jobs:
                  - broken
                  - after: {requires: [broken]}
            """),
    /** The fault driver's probe: one short job, to time recovery. */
    PROBE("probe", "success", """
            jobs:
              probe:
                <<: *job
                steps: [begin, finish]
            workflows:
              probe:
                jobs: [probe]
            """);

    private static final String COMMON = """
            version: 2.1
            x-job: &job
              docker:
                - image: cimg/base:2024.01
              resource_class: small
            commands:
              begin:
                steps:
                  - run:
                      name: Begin
                      command: |
                        echo "start @LINE@" >> @TRACE@
                        sleep @SLEEP@
              finish:
                steps:
                  - run:
                      name: Finish
                      command: |
                        echo "end @LINE@" >> @TRACE@
            """;

    /** What follows {@code start} or {@code end} on a trace line. */
    private static final String TRACE_LINE =
            "$CIRCLE_PIPELINE_ID $CIRCLE_JOB $CIRCLE_NODE_INDEX $CIRCLE_BUILD_NUM $(date +%s%3N)";

    final String project;
    /** The workflow status the pipeline ends with when nothing went wrong. */
    final String expected;
    private final String body;

    Shape(String project, String expected, String body) {
        this.project = project;
        this.expected = expected;
        this.body = body;
    }

    /** {@code gantry/local/PROJECT}. */
    String slug() {
        return "gantry/local/" + project;
    }

    /** The project's config, its jobs tracing to {@code trace} and working {@code sleep} seconds each. */
    String config(String trace, String sleep) {
        // A shape's own commands (its body starts with them) join the common ones, which COMMON ends with.
        String text = COMMON + (body.startsWith("commands:\n") ? body.substring("commands:\n".length()) : body);
        return text.replace("@LINE@", TRACE_LINE).replace("@TRACE@", trace).replace("@SLEEP@", sleep);
    }
}
