package dev.gantry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.InvalidServerSettingException;
import dev.gantry.server.ServerSettings;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3SettingsTest {
    @Test
    void without_gantry_blob_store_blobs_are_files_under_gantry_home() {
        assertThat(S3Settings.fromEnvironment(Map.of())).isNull();
        assertThat(ServerSettings.fromEnvironment(Map.of()).blobStore()).isNull();
    }

    @Test
    void an_s3_compatible_server_is_path_style_in_us_east_1_with_the_key_from_the_environment() {
        S3Settings settings = S3Settings.fromEnvironment(Map.of("GANTRY_BLOB_STORE", "s3://ci-blobs/gantry/prod/",
                "GANTRY_S3_ENDPOINT", "http://127.0.0.1:9000", "AWS_ACCESS_KEY_ID", "minio",
                "AWS_SECRET_ACCESS_KEY", "minio-secret"));

        assertThat(settings).isEqualTo(new S3Settings("ci-blobs", "gantry/prod", URI.create("http://127.0.0.1:9000"),
                "us-east-1", true, new S3Settings.Keys("minio", "minio-secret", null), false));
        assertThat(settings.location()).isEqualTo("s3://ci-blobs/gantry/prod");
        assertThat(settings.toString()).contains("accessKeyId=minio").doesNotContain("minio-secret");
    }

    @Test
    void amazon_s3_takes_the_region_from_gantry_s3_region_or_aws_region_and_credentials_from_the_sdk_chain() {
        assertThat(S3Settings.fromEnvironment(Map.of("GANTRY_BLOB_STORE", "s3://ci-blobs", "AWS_REGION",
                "eu-west-1"))).isEqualTo(new S3Settings("ci-blobs", "", null, "eu-west-1", false, null, false));
        assertThat(S3Settings.fromEnvironment(Map.of("GANTRY_BLOB_STORE", "s3://ci-blobs", "AWS_REGION",
                "eu-west-1", "GANTRY_S3_REGION", "us-west-2", "GANTRY_S3_PATH_STYLE", "true",
                "GANTRY_S3_PRESIGNED_DOWNLOADS", "yes"))).isEqualTo(new S3Settings("ci-blobs", "", null, "us-west-2",
                true, null, true));
    }

    @Test
    void amazon_s3_without_a_region_names_the_variable_to_set() {
        assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("GANTRY_BLOB_STORE", "s3://ci-blobs")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_BLOB_STORE names an Amazon S3 bucket: set GANTRY_S3_REGION (or AWS_REGION) to its "
                        + "region, e.g. eu-west-1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "/var/gantry", "file:///var/gantry", "s3://", "s3:///prefix", "s3://b",
            "s3://bucket/a/../b", "s3://user@bucket/x", "s3://bucket:9000/x", "s3://bucket/x?versioned", "minio://b/x"})
    void a_blob_store_that_is_not_an_s3_url_names_the_variable_and_the_rule(String value) {
        assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("GANTRY_BLOB_STORE", value)))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_BLOB_STORE must be s3://BUCKET or s3://BUCKET/PREFIX (unset it for files under "
                        + "GANTRY_HOME), got '" + value + "'");
    }

    @Test
    void bad_s3_variables_name_themselves() {
        Map<String, String> base = Map.of("GANTRY_BLOB_STORE", "s3://ci-blobs", "GANTRY_S3_ENDPOINT",
                "http://127.0.0.1:9000");

        assertThatThrownBy(() -> S3Settings.fromEnvironment(with(base, "GANTRY_S3_ENDPOINT", "127.0.0.1:9000")))
                .hasMessage("GANTRY_S3_ENDPOINT must be an http or https URL with a host and nothing after it, e.g. "
                        + "http://127.0.0.1:9000, got '127.0.0.1:9000'");
        assertThatThrownBy(() -> S3Settings.fromEnvironment(with(base, "GANTRY_S3_PATH_STYLE", "maybe")))
                .hasMessage("GANTRY_S3_PATH_STYLE is true or false, got 'maybe'");
        assertThatThrownBy(() -> S3Settings.fromEnvironment(with(base, "GANTRY_S3_REGION", "Europe West")))
                .hasMessage("GANTRY_S3_REGION must be a region such as eu-west-1, got 'Europe West'");
        assertThatThrownBy(() -> S3Settings.fromEnvironment(with(base, "AWS_ACCESS_KEY_ID", "only-the-id")))
                .hasMessage("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together, neither empty; unset both for "
                        + "the AWS SDK's default credentials");
    }

    @Test
    void an_s3_variable_without_gantry_blob_store_is_an_error_not_ignored() {
        assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("GANTRY_S3_ENDPOINT", "http://127.0.0.1:9000")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_S3_ENDPOINT is set but GANTRY_BLOB_STORE is not; set it to s3://BUCKET/PREFIX to "
                        + "keep blobs in S3, or unset GANTRY_S3_ENDPOINT");
    }

    private static Map<String, String> with(Map<String, String> base, String variable, String value) {
        Map<String, String> environment = new HashMap<>(base);
        environment.put(variable, value);
        return environment;
    }
}
