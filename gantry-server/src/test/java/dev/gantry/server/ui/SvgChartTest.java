package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SvgChartTest {
    private static final int PLOT_HEIGHT = SvgChart.HEIGHT - SvgChart.TOP - SvgChart.BOTTOM;
    private static final int PLOT_WIDTH = SvgChart.WIDTH - SvgChart.LEFT - SvgChart.RIGHT;

    @Test
    void values_scale_from_zero_at_the_bottom_to_a_round_top_and_spread_evenly_across() {
        SvgChart chart = chart(null, 0.0, 30.0, 60.0);

        // 60 rounds up to 100 (1, 2, 2.5, 5 × 10ⁿ): 30 sits at 30 % of the plot's height from the bottom.
        List<SvgChart.Dot> dots = chart.lines().getFirst().dots();
        assertThat(dots).extracting(SvgChart.Dot::x).containsExactly((double) SvgChart.LEFT,
                SvgChart.LEFT + PLOT_WIDTH / 2.0, (double) SvgChart.LEFT + PLOT_WIDTH);
        assertThat(dots).extracting(SvgChart.Dot::y).containsExactly((double) chart.plotBottom(),
                chart.plotBottom() - 0.3 * PLOT_HEIGHT, chart.plotBottom() - 0.6 * PLOT_HEIGHT);
        assertThat(chart.yTicks()).extracting(SvgChart.Tick::label).containsExactly("0", "25", "50", "75", "100");
        assertThat(chart.yTicks().getLast().at()).isEqualTo(chart.plotTop());
        String path = chart.lines().getFirst().path();
        assertThat(path).startsWith("M56 ").contains(" L");
        assertThat(path.chars().filter(c -> c == 'M').count()).as("one unbroken line").isEqualTo(1);
    }

    @Test
    void a_fixed_top_is_kept_and_a_value_above_it_is_drawn_at_the_top() {
        SvgChart chart = chart(100.0, 50.0, 120.0);

        assertThat(chart.yTicks().getLast().label()).isEqualTo("100");
        assertThat(chart.lines().getFirst().dots().get(1).y()).isEqualTo(chart.plotTop());
    }

    @Test
    void the_round_top_is_the_next_of_one_two_two_and_a_half_or_five_times_a_power_of_ten() {
        assertThat(SvgChart.niceCeiling(0)).isEqualTo(1);
        assertThat(SvgChart.niceCeiling(0.3)).isEqualTo(0.5);
        assertThat(SvgChart.niceCeiling(1)).isEqualTo(1);
        assertThat(SvgChart.niceCeiling(1.5)).isEqualTo(2);
        assertThat(SvgChart.niceCeiling(2.1)).isEqualTo(2.5);
        assertThat(SvgChart.niceCeiling(7200)).isEqualTo(10_000);
        assertThat(SvgChart.niceCeiling(180_000)).isEqualTo(200_000);
    }

    @Test
    void no_data_is_an_empty_chart_with_axes_from_zero_to_one_and_says_so() {
        SvgChart none = chart(null, null, null, null);
        SvgChart noPoints = SvgChart.of("Runs", List.of(), List.of(new SvgChart.Series("runs", "a", List.of())),
                null, v -> SvgChart.number(v));

        assertThat(none.empty()).isTrue();
        assertThat(none.lines().getFirst().path()).isEmpty();
        assertThat(none.yTicks().getLast().label()).isEqualTo("1");
        assertThat(none.summary()).isEqualTo("Runs, d0 to d2: no data.");
        assertThat(noPoints.empty()).isTrue();
        assertThat(noPoints.xTicks()).isEmpty();
        assertThat(noPoints.summary()).isEqualTo("Runs: no data.");
    }

    @Test
    void a_single_point_is_a_dot_in_the_middle_without_a_line() {
        SvgChart chart = chart(null, 4.0);

        assertThat(chart.empty()).isFalse();
        assertThat(chart.lines().getFirst().path()).isEmpty();
        assertThat(chart.lines().getFirst().dots()).singleElement()
                .satisfies(d -> assertThat(d.x()).isEqualTo(SvgChart.LEFT + PLOT_WIDTH / 2.0));
        assertThat(chart.xTicks()).singleElement().satisfies(t -> assertThat(t.label()).isEqualTo("d0"));
        assertThat(chart.summary()).isEqualTo("Runs, d0: 1 of 1 with a value, all 4, last 4.");
    }

    @Test
    void a_gap_breaks_the_line_and_a_lone_point_between_gaps_is_only_a_dot() {
        SvgChart chart = chart(null, 1.0, 2.0, null, 3.0, null, 4.0, 5.0);

        SvgChart.Line line = chart.lines().getFirst();
        assertThat(line.dots()).hasSize(5);
        // Two segments (points 0–1 and 5–6); point 3 stands alone.
        assertThat(line.path().split("M")).hasSize(3);
        assertThat(line.path().split("L")).hasSize(3);
        assertThat(line.path()).doesNotContain(SvgChart.number(line.dots().get(2).x()) + " ");
        assertThat(chart.summary()).isEqualTo("Runs, d0 to d6: 5 of 7 with a value, from 1 to 5, last 5.");
    }

    @Test
    void several_series_share_the_scale_of_the_largest_and_each_is_summarised() {
        SvgChart chart = SvgChart.of("Duration", List.of("a", "b"), List.of(
                new SvgChart.Series("p50", "p50", List.of(10.0, 20.0)),
                new SvgChart.Series("p95", "p95", List.of(40.0, 90.0))), null, SvgChart::number);

        assertThat(chart.yTicks().getLast().label()).isEqualTo("100");
        assertThat(chart.summary()).isEqualTo("Duration, a to b: p50: 2 of 2 with a value, from 10 to 20, last 20. "
                + "p95: 2 of 2 with a value, from 40 to 90, last 90.");
    }

    @Test
    void at_most_five_x_labels_are_shown_first_and_last_among_them() {
        Double[] values = new Double[30];
        SvgChart chart = chart(null, values);

        assertThat(chart.xTicks()).extracting(SvgChart.Tick::label).containsExactly("d0", "d7", "d15", "d22",
                "d29");
        assertThat(chart.xTicks()).extracting(chart::anchor).containsExactly("start", "middle", "middle", "middle",
                "end");
    }

    @Test
    void a_series_must_have_a_value_or_null_for_every_x_label() {
        assertThatThrownBy(() -> SvgChart.of("Runs", List.of("a", "b"),
                List.of(new SvgChart.Series("runs", "a", List.of(1.0))), null, SvgChart::number))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 values for 2");
    }

    private static SvgChart chart(Double fixedTop, Double... values) {
        List<String> labels = java.util.stream.IntStream.range(0, values.length).mapToObj(i -> "d" + i).toList();
        return SvgChart.of("Runs", labels, List.of(new SvgChart.Series("runs", "a", Arrays.asList(values))),
                fixedTop, SvgChart::number);
    }
}
