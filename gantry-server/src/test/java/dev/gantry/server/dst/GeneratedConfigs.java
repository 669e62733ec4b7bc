package dev.gantry.server.dst;

import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.plan.ConfigSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The config each seed's project has: a random but valid CircleCI config (one workflow of 2-4 jobs or two of 2-3, a
 * random {@code requires} DAG, some of it on {@code failed} or on any end, some approval jobs, parallelism 1-2),
 * served as the repository would serve it, without git. Single-threaded.
 */
final class GeneratedConfigs implements ConfigSource {
    static final String REVISION = "d5700000000000000000000000000000000000d5";

    private final Map<UUID, String> configs = new HashMap<>();

    void put(UUID projectId, String config) {
        configs.put(projectId, config);
    }

    @Override
    public FetchedConfig fetch(UUID projectId, String vcsUrl, GitRef ref, String revision, Instant notBefore) {
        return new FetchedConfig(REVISION, ".circleci/config.yml", configs.get(projectId), "main");
    }

    /** A config drawn from {@code random}. */
    static String generate(SplittableRandom random) {
        StringBuilder jobs = new StringBuilder();
        StringBuilder workflows = new StringBuilder();
        int workflowCount = random.nextInt(10) < 8 ? 1 : 2;
        int jobNumber = 0;
        for (int w = 1; w <= workflowCount; w++) {
            workflows.append("  w").append(w).append(":\n    jobs:\n");
            int size = 2 + random.nextInt(workflowCount == 1 ? 3 : 2);
            List<String> names = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                boolean approval = i > 0 && random.nextInt(6) == 0;
                String name = (approval ? "hold" : "job") + (++jobNumber);
                List<String> requires = new ArrayList<>();
                for (String earlier : names) {
                    if (random.nextInt(3) == 0 || (approval && requires.isEmpty())) {
                        requires.add(switch (random.nextInt(8)) {
                            case 0 -> earlier + ": failed";
                            case 1 -> earlier + ": [success, failed]";
                            default -> earlier;
                        });
                    }
                }
                if (!approval) {
                    jobs.append("  ").append(name).append(":\n    docker: [{image: alpine}]\n");
                    if (random.nextInt(5) == 0) {
                        jobs.append("    parallelism: 2\n");
                    }
                    jobs.append("    steps: [{run: make}]\n");
                }
                if (requires.isEmpty() && !approval) {
                    workflows.append("      - ").append(name).append('\n');
                } else {
                    workflows.append("      - ").append(name).append(":\n");
                    if (approval) {
                        workflows.append("          type: approval\n");
                    }
                    workflows.append("          requires:\n");
                    for (String r : requires) {
                        workflows.append("            - ").append(r).append('\n');
                    }
                }
                names.add(name);
            }
        }
        return "version: 2.1\njobs:\n" + jobs + "workflows:\n" + workflows;
    }
}
