package dev.gantry.server.insights;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.http.ListJson;
import dev.gantry.server.http.PageToken;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class InsightsRoutesTest {
    @Test
    void durations_are_whole_seconds_rounded_and_rates_fractions() {
        assertThat(InsightsRoutes.seconds(1_499L)).isEqualTo(1L);
        assertThat(InsightsRoutes.seconds(1_500L)).isEqualTo(2L);
        assertThat(InsightsRoutes.seconds(null)).isNull();
        assertThat(InsightsRoutes.rate(2, 5)).isEqualTo(0.4);
        assertThat(InsightsRoutes.rate(0, 0)).isZero();
    }

    @Test
    void a_list_longer_than_a_page_hands_out_a_token_naming_its_last_item() {
        List<String> names = IntStream.range(0, PageToken.PAGE_SIZE + 1).mapToObj(i -> "w" + (100 + i)).toList();

        ListJson<String> first = InsightsRoutes.page(names, Function.identity());

        assertThat(first.items()).hasSize(PageToken.PAGE_SIZE).endsWith("w" + (99 + PageToken.PAGE_SIZE));
        assertThat(PageToken.decode(first.nextPageToken(), 1).position())
                .containsExactly("w" + (99 + PageToken.PAGE_SIZE));
        assertThat(InsightsRoutes.page(names.subList(0, PageToken.PAGE_SIZE), Function.identity()).nextPageToken())
                .isNull();
    }
}
