package dev.gantry.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceClassesTest {
    @Test
    void defaults_are_circleci_docker_classes_smallest_first() {
        ResourceClasses classes = ResourceClasses.defaults();

        assertThat(classes.all()).extracting(ResourceClass::name)
                .containsExactly("small", "medium", "medium+", "large", "xlarge", "2xlarge", "2xlarge+");
        assertThat(classes.get("medium+")).isEqualTo(new ResourceClass("medium+", 3, 6144, 30, 15));
        assertThat(classes.get("2xlarge+").demand()).isEqualTo(new Resources(20, 40960, 200));
    }

    @Test
    void an_unknown_class_fails_with_the_list_of_known_ones() {
        assertThatThrownBy(() -> ResourceClasses.defaults().get("huge"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown resource class 'huge'; known classes: "
                        + "small, medium, medium+, large, xlarge, 2xlarge, 2xlarge+");
    }

    @Test
    void a_table_rejects_a_class_defined_twice() {
        ResourceClass a = new ResourceClass("gpu", 4, 8192, 40, 50);
        assertThatThrownBy(() -> ResourceClasses.of(List.of(a, a)))
                .hasMessage("resource class 'gpu' is defined twice");
    }

    @Test
    void a_class_must_demand_some_of_every_resource() {
        assertThatThrownBy(() -> new ResourceClass("free", 0, 1024, 10, 1))
                .hasMessageContaining("must demand some of every resource");
    }
}
