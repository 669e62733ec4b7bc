package dev.gantry.bench.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CpuTimesTest {
    @Test
    void busy_and_steal_are_shares_of_all_the_time_between_two_readings() {
        CpuTimes start = CpuTimes.parse("cpu  1000 10 300 5000 100 0 40 50 0 0");
        //                             user +600, system +200, softirq +20, idle +900, iowait +80, steal +200
        CpuTimes end = CpuTimes.parse("cpu  1600 10 500 5900 180 0 60 250 0 0");

        assertThat(end.busySince(start)).isCloseTo(820 / 2000.0, within(1e-9));
        assertThat(end.stealSince(start)).isCloseTo(200 / 2000.0, within(1e-9));
    }

    @Test
    void an_unknown_reading_gives_no_share() {
        CpuTimes end = CpuTimes.parse("cpu 1 2 3 4 5 6 7 8");

        assertThat(end.busySince(CpuTimes.UNKNOWN)).isNaN();
        assertThat(CpuTimes.UNKNOWN.stealSince(CpuTimes.UNKNOWN)).isNaN();
        assertThatThrownBy(() -> CpuTimes.parse("cpu0 1 2 3 4 5 6 7 8")).isInstanceOf(IllegalArgumentException.class);
    }
}
