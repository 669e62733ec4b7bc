package dev.gantry.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PasswordFileTest {
    @TempDir
    Path home;

    @Test
    void the_first_read_writes_a_random_password_for_the_owner_alone_and_later_reads_return_it() throws IOException {
        Path file = home.resolve("postgres.password");

        PasswordFile.Password created = PasswordFile.readOrCreate(file);
        PasswordFile.Password read = PasswordFile.readOrCreate(file);

        assertThat(created.created()).isTrue();
        assertThat(created.value()).matches("[A-Za-z0-9_-]{43}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(read).isEqualTo(new PasswordFile.Password(created.value(), false));
        assertThat(created.toString()).doesNotContain(created.value());
        assertThat(PasswordFile.readOrCreate(home.resolve("other.password")).value()).isNotEqualTo(created.value());
    }

    @Test
    void a_file_others_may_read_or_an_empty_one_is_refused_naming_it() throws IOException {
        Path open = Files.writeString(home.resolve("open.password"), "secret\n");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r-----"));
        Path empty = Files.writeString(home.resolve("empty.password"), "\n");
        Files.setPosixFilePermissions(empty, PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> PasswordFile.readOrCreate(open)).isInstanceOf(DatabaseStartException.class)
                .hasMessageContaining(open + " may be read by others (mode rw-r-----)")
                .message().doesNotContain("secret");
        assertThatThrownBy(() -> PasswordFile.readOrCreate(empty)).isInstanceOf(DatabaseStartException.class)
                .hasMessageContaining(empty + " is empty");
    }

    @Test
    void gantrys_pg_hba_conf_asks_every_connection_for_the_password_and_trusts_none() {
        assertThat(ClientAuthentication.CONTENT.lines().filter(line -> !line.startsWith("#")))
                .containsExactly("local   all       all                 scram-sha-256",
                        "host    all       all   127.0.0.1/32  scram-sha-256");
    }
}
