package dev.gantry.notify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.notify.webhook.Webhook;
import dev.gantry.resilience.CircuitBreaker;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DestinationGuardTest {
    Instant now = Instant.parse("2026-12-10T10:00:00Z");
    final InstantSource clock = () -> now;
    final DestinationGuard guard = new DestinationGuard(new DestinationGuard.Settings(8, 2, 4, 0.1, 2, 3,
            Duration.ofSeconds(30), Duration.ofSeconds(1)), clock, new SplittableRandom(7));

    @Test
    void a_destination_holds_at_most_its_share_of_the_pool_and_others_still_go() {
        List<DestinationGuard.Permit> held = new ArrayList<>();
        held.add(go(guard.enter("webhook", "hang.example", "hang.example", false)));
        held.add(go(guard.enter("webhook", "hang.example", "hang.example", false)));

        DestinationGuard.Decision third = guard.enter("webhook", "hang.example", "hang.example", false);

        assertThat(third).isInstanceOf(DestinationGuard.Wait.class);
        assertThat(((DestinationGuard.Wait) third).reason()).contains("busy");
        assertThat(guard.enter("webhook", "ok.example", "ok.example", false)).isInstanceOf(DestinationGuard.Go.class);
        assertThat(guard.enter("slack", "hang.example", "hang.example", false))
                .as("another kind is another destination")
                .isInstanceOf(DestinationGuard.Go.class);
        held.getFirst().close();
        assertThat(guard.enter("webhook", "HANG.example", "HANG.example", false))
                .isInstanceOf(DestinationGuard.Go.class);
    }

    @Test
    void failures_open_the_circuit_which_lets_one_probe_through_after_it_has_been_open_for_its_time() {
        for (int i = 0; i < 3; i++) {
            try (DestinationGuard.Permit permit = go(guard.enter("webhook", "down.example", "down.example", false))) {
                permit.failed();
            }
        }
        DestinationGuard.Decision refused = guard.enter("webhook", "down.example", "down.example", false);
        assertThat(refused).isInstanceOf(DestinationGuard.Wait.class);
        assertThat(((DestinationGuard.Wait) refused).delay()).isBetween(Duration.ofSeconds(15),
                Duration.ofSeconds(30));

        now = now.plusSeconds(30);
        DestinationGuard.Permit probe = go(guard.enter("webhook", "down.example", "down.example", false));
        assertThat(guard.enter("webhook", "down.example", "down.example", false)).as("one probe only")
                .isInstanceOf(DestinationGuard.Wait.class);
        probe.succeeded();
        probe.close();
        assertThat(guard.circuit("webhook", "down.example")).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void retries_are_at_most_a_tenth_of_first_attempts_plus_the_burst() {
        int retries = 0;
        for (int i = 0; i < 100; i++) {
            try (DestinationGuard.Permit first = go(guard.enter("webhook", "flaky.example", "flaky.example", false))) {
                first.succeeded(); // keeps the circuit closed: only the budget is under test
            }
            for (int r = 0; r < 3; r++) {
                if (guard.enter("webhook", "flaky.example", "flaky.example", true) instanceof DestinationGuard.Go go) {
                    go.permit().succeeded();
                    go.permit().close();
                    retries++;
                }
            }
        }
        assertThat(retries).isBetween(10, 12);
    }

    @Test
    void a_permit_closed_without_an_outcome_counts_as_a_failure_so_a_probe_is_never_lost() {
        for (int i = 0; i < 3; i++) {
            go(guard.enter("webhook", "x.example", "x.example", false)).close();
        }
        assertThat(guard.circuit("webhook", "x.example")).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void endpoints_on_one_host_have_guards_of_their_own_so_a_failing_one_does_not_hold_back_the_others() {
        Webhook failing = new Webhook(UUID.randomUUID(), "f", URI.create("https://hooks.example/a"), true, "k");
        Webhook healthy = new Webhook(UUID.randomUUID(), "h", URI.create("https://hooks.example/b"), true, "k");
        for (int i = 0; i < 3; i++) {
            go(guard.enter("webhook", failing.host(), failing.endpoint(), false)).close();
        }
        assertThat(guard.enter("webhook", failing.host(), failing.endpoint(), false))
                .isInstanceOf(DestinationGuard.Wait.class);
        assertThat(guard.enter("webhook", healthy.host(), healthy.endpoint(), false))
                .isInstanceOf(DestinationGuard.Go.class);
        assertThat(failing.endpoint()).contains("hooks.example").doesNotContain("/a");
    }

    @Test
    void the_endpoints_of_one_host_hold_at_most_the_hosts_share_so_other_hosts_keep_workers() {
        List<DestinationGuard.Permit> held = new ArrayList<>();
        for (String endpoint : List.of("hooks.example (a)", "hooks.example (b)")) {
            held.add(go(guard.enter("slack", "hooks.example", endpoint, false)));
            held.add(go(guard.enter("slack", "hooks.example", endpoint, false)));
        }

        DestinationGuard.Decision third = guard.enter("webhook", "HOOKS.example", "hooks.example (c)", false);

        assertThat(third).as("a third endpoint of the host, even of another kind")
                .isInstanceOf(DestinationGuard.Wait.class);
        assertThat(((DestinationGuard.Wait) third).reason()).isEqualTo("all 4 workers for host hooks.example busy");
        assertThat(guard.enter("webhook", "other.example", "other.example (d)", false))
                .isInstanceOf(DestinationGuard.Go.class);
        held.getFirst().close();
        assertThat(guard.enter("webhook", "hooks.example", "hooks.example (c)", false))
                .isInstanceOf(DestinationGuard.Go.class);
    }

    private static DestinationGuard.Permit go(DestinationGuard.Decision decision) {
        assertThat(decision).isInstanceOf(DestinationGuard.Go.class);
        return ((DestinationGuard.Go) decision).permit();
    }
}
