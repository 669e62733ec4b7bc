package dev.gantry.scheduler.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.scheduler.Resources;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetConfigTest {
    private static final String GOOD = """
            scale_in_after: 10m
            unavailable_for: 90s
            provision_timeout: 4m
            lost_after: 45s
            clusters:
              - name: us-east
                min: 2
                max: 20
                types:
                  - {name: c7.4xlarge, vcpu: 16, memory_gb: 32, disk_gb: 160, cost_per_hour: 0.68}
                  - {name: c6.4xlarge, vcpu: 16, memory_gb: 32, disk_gb: 160, cost_per_hour: 0.61}
              - name: mac-1
                pool: macos
                max: 4
                types:
                  - {name: m4pro, vcpu: 12, memory_gb: 24, disk_gb: 200}
            pins:
              "xcode:*": macos
              "xcode:15-legacy": default
            """;

    @Test
    void reads_clusters_types_in_rank_order_pins_and_durations() {
        FleetConfig config = FleetConfig.parse("fleet.yml", GOOD);

        assertThat(config.scaleInAfter()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.unavailableFor()).isEqualTo(Duration.ofSeconds(90));
        assertThat(config.provisionTimeout()).isEqualTo(Duration.ofMinutes(4));
        assertThat(config.lostAfter()).isEqualTo(Duration.ofSeconds(45));
        Cluster east = config.cluster("us-east").orElseThrow();
        assertThat(east.pool()).isEqualTo("default");
        assertThat(east.min()).isEqualTo(2);
        assertThat(east.max()).isEqualTo(20);
        assertThat(east.types()).extracting(RankedType::name, RankedType::costPerHour)
                .containsExactly(tuple("c7.4xlarge", 0.68), tuple("c6.4xlarge", 0.61));
        assertThat(east.types().getFirst().type().capacity()).isEqualTo(new Resources(16, 32 * 1024, 160));
        assertThat(config.clustersOf("macos")).extracting(Cluster::name).containsExactly("mac-1");
        assertThat(config.cluster("mac-1").orElseThrow().min()).isZero();
    }

    @Test
    void an_image_pin_matches_exactly_or_by_longest_prefix_and_unpinned_images_run_in_default() {
        FleetConfig config = FleetConfig.parse("fleet.yml", GOOD);

        assertThat(config.poolForImage("xcode:26.6")).isEqualTo("macos");
        assertThat(config.poolForImage("xcode:15-legacy")).isEqualTo("default");
        assertThat(config.poolForImage("cimg/node:22")).isEqualTo("default");
    }

    @Test
    void the_default_fleet_is_one_local_cluster_ranking_large_before_medium() {
        FleetConfig config = FleetConfig.defaults();

        Cluster local = config.cluster("local").orElseThrow();
        assertThat(local.pool()).isEqualTo("default");
        assertThat(local.types()).extracting(RankedType::name).containsExactly("local-large", "local-medium");
        assertThat(local.types().getFirst().type().capacity()).isEqualTo(new Resources(8, 16 * 1024, 80));
        assertThat(local.min()).isEqualTo(1);
        assertThat(local.max()).isEqualTo(4);
        assertThat(config.lostAfter()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void every_problem_is_reported_with_its_file_line_and_column() {
        String text = """
                scale_in_after: soon
                clusters:
                  - name: a
                    min: 3
                    max: 2
                    types:
                      - {name: t1, vcpu: 4, memory_gb: 8, disk_gb: 40}
                      - {name: t1, vcpu: 4, memory_gb: 8, disk_gb: 40}
                      - {name: t2, vcpu: 0, memory_gb: 8, disk_gb: 40}
                  - name: b
                    maxx: 3
                    types: []
                pins:
                  "xcode:*": macos
                """;

        assertThatThrownBy(() -> FleetConfig.parse("fleet.yml", text))
                .isInstanceOfSatisfying(FleetConfigException.class, e -> assertThat(e.problems())
                        .extracting(FleetConfigException.Problem::line, FleetConfigException.Problem::column)
                        .containsExactly(
                                tuple(1, 17),   // scale_in_after: soon
                                tuple(4, 10),   // min above max
                                tuple(8, 9),    // t1 twice
                                tuple(9, 26),   // vcpu: 0
                                tuple(11, 5),   // unknown key maxx
                                tuple(10, 5),   // b needs max
                                tuple(12, 12),  // types: []
                                tuple(14, 14))) // pinned to a pool nobody serves
                .hasMessageContaining("fleet.yml:1:17: error: a duration is a whole number and a unit")
                .hasMessageContaining("fleet.yml:11:5: error: unknown key 'maxx' in a cluster; known keys: max, min,")
                .hasMessageContaining("fleet.yml:14:14: error: image 'xcode:*' is pinned to pool 'macos', which no"
                        + " cluster serves");
    }

    @Test
    void resource_classes_replace_the_default_table_and_org_limits_cap_organisations() {
        FleetConfig config = FleetConfig.parse("fleet.yml", """
                clusters:
                  - {name: a, max: 2, types: [{name: t, vcpu: 8, memory_gb: 16, disk_gb: 80}]}
                resource_classes:
                  - {name: tiny, vcpu: 1, memory_gb: 1, disk_gb: 5, credits_per_minute: 2}
                  - {name: huge, vcpu: 8, memory_gb: 16, disk_gb: 80}
                org_limits:
                  acme: 20
                  initech: 0
                """);

        assertThat(config.resourceClasses().known()).isEqualTo("tiny, huge");
        assertThat(config.resourceClasses().get("tiny")).isEqualTo(new ResourceClass("tiny", 1, 1024, 5, 2));
        assertThat(config.orgLimits()).isEqualTo(new OrgLimits(Map.of("acme", 20, "initech", 0)));
        assertThat(FleetConfig.defaults().resourceClasses().known()).isEqualTo(ResourceClasses.defaults().known());
        assertThat(FleetConfig.defaults().orgLimits()).isEqualTo(OrgLimits.NONE);
    }

    @Test
    void a_bad_resource_class_or_org_limit_is_reported_where_it_is() {
        String text = """
                clusters:
                  - {name: a, max: 2, types: [{name: t, vcpu: 8, memory_gb: 16, disk_gb: 80}]}
                resource_classes:
                  - {name: tiny, vcpu: 1, memory_gb: 1, disk_gb: 5}
                  - {name: tiny, vcpu: 2, memory_gb: 2, disk_gb: 5}
                  - {name: odd, vcpu: 1, memory: 1, disk_gb: 5}
                org_limits:
                  acme: -1
                """;

        assertThatThrownBy(() -> FleetConfig.parse("fleet.yml", text))
                .isInstanceOfSatisfying(FleetConfigException.class, e -> assertThat(e.problems())
                        .extracting(FleetConfigException.Problem::line, FleetConfigException.Problem::column)
                        .containsExactly(tuple(5, 5), tuple(6, 26), tuple(6, 5), tuple(8, 9)))
                .hasMessageContaining("fleet.yml:5:5: error: resource class 'tiny' is defined twice (first at line 4)")
                .hasMessageContaining("fleet.yml:8:9: error: 'org_limits.acme' must be a whole number of at least 0");
    }

    @Test
    void broken_yaml_is_reported_at_the_parser_position() {
        assertThatThrownBy(() -> FleetConfig.parse("fleet.yml", "clusters:\n  - name: [a\n"))
                .isInstanceOfSatisfying(FleetConfigException.class, e -> {
                    assertThat(e.problems()).hasSize(1);
                    assertThat(e.problems().getFirst().line()).isEqualTo(3);
                    assertThat(e.problems().getFirst().message()).startsWith("invalid YAML: ");
                });
    }

    @Test
    void an_empty_file_or_one_without_clusters_is_refused() {
        assertThatThrownBy(() -> FleetConfig.parse("fleet.yml", ""))
                .hasMessage("fleet.yml:1:1: error: the fleet file is empty");
        assertThatThrownBy(() -> FleetConfig.parse("fleet.yml", "scale_in_after: 5m\n"))
                .hasMessage("fleet.yml:1:1: error: 'clusters' is missing: a fleet needs at least one cluster");
    }

    @Test
    void a_fleet_embedded_in_a_larger_file_is_read_from_its_node_with_that_files_positions() {
        String text = """
                name: a scenario
                fleet:
                  clusters:
                    - name: east
                      max: 0
                      types: [{name: t16, vcpu: 16, memory_gb: 32, disk_gb: 160}]
                """;
        var root = (org.yaml.snakeyaml.nodes.MappingNode) new org.yaml.snakeyaml.Yaml()
                .compose(new java.io.StringReader(text));
        var fleetNode = root.getValue().get(1).getValueNode();

        assertThatThrownBy(() -> FleetConfig.parse("scenario.yaml", fleetNode))
                .isInstanceOf(FleetConfigException.class)
                .extracting(e -> ((FleetConfigException) e).problems())
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.list(FleetConfigException.Problem.class))
                .extracting(FleetConfigException.Problem::file, FleetConfigException.Problem::line,
                        FleetConfigException.Problem::column)
                .containsExactly(tuple("scenario.yaml", 5, 12));
    }
}
