package dev.gantry.db;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RootUserTest {

    @Test
    void the_root_message_says_why_and_offers_every_way_out() {
        String message = RootUser.cannotRunAsRoot("'unshare -U id -u' exited with 1: Operation not permitted");

        assertThat(message)
                .contains("PostgreSQL refuses to run as root")
                .contains("Operation not permitted")
                .contains("Run Gantry as a normal user")
                .contains("user namespaces")
                .contains("GANTRY_DATABASE_URL");
    }
}
