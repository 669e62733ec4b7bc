package dev.gantry.agent.executor.docker;

import com.github.dockerjava.api.model.AuthConfig;
import dev.gantry.agent.executor.SandboxException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ecr.EcrClient;
import software.amazon.awssdk.services.ecr.EcrClientBuilder;
import software.amazon.awssdk.services.ecr.model.AuthorizationData;

/**
 * The registry login for an image with {@code aws_auth}, as CircleCI does it: Amazon ECR's
 * {@code GetAuthorizationToken}, signed with the job's access key, gives a user and a password for the pull. The region
 * is the registry host's ({@code ACCOUNT.dkr.ecr.REGION.amazonaws.com}), else the job's {@code AWS_REGION} or
 * {@code AWS_DEFAULT_REGION}. Only the given key is used, never the agent's own AWS settings. Thread-safe.
 */
final class EcrLogin {
    private static final Pattern ECR_HOST =
            Pattern.compile("\\d{12}\\.dkr\\.ecr(?:-fips)?\\.([a-z0-9-]+)\\.amazonaws\\.com(?:\\.cn)?");
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final URI endpoint;

    /** @param endpoint ECR's API endpoint (a VPC endpoint, a test's fake), or null for AWS's own in the region */
    EcrLogin(URI endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * The credentials to pull from {@code registry}.
     *
     * @param awsAuth   the image's {@code aws_auth} as written
     * @param resolve   puts the job's variables into a value ({@code $VAR})
     * @param variables the job's variables, for its region
     */
    AuthConfig login(String registry, Map<String, String> awsAuth, UnaryOperator<String> resolve,
                     Map<String, String> variables) throws SandboxException {
        if (awsAuth.containsKey("oidc_role_arn")) {
            throw new SandboxException("cannot log in to Amazon ECR for " + registry + ": aws_auth with oidc_role_arn "
                    + "needs an OpenID Connect token for the job, which Gantry does not issue; give "
                    + "aws_access_key_id and aws_secret_access_key instead");
        }
        String keyId = resolve.apply(awsAuth.get("aws_access_key_id"));
        String secret = resolve.apply(awsAuth.get("aws_secret_access_key"));
        if (keyId == null || keyId.isBlank() || secret == null || secret.isBlank()) {
            throw new SandboxException("cannot log in to Amazon ECR for " + registry + ": aws_auth's "
                    + "aws_access_key_id or aws_secret_access_key is empty (is its variable set for this job?)");
        }
        String region = region(registry, variables);
        EcrClientBuilder builder = EcrClient.builder()
                .region(Region.of(region))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)))
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(30)))
                .overrideConfiguration(c -> c.apiCallTimeout(CALL_TIMEOUT));
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        try (EcrClient ecr = builder.build()) {
            AuthorizationData data = ecr.getAuthorizationToken().authorizationData().stream().findFirst()
                    .orElseThrow(() -> new SandboxException("Amazon ECR gave no authorization data for " + registry));
            String token = new String(Base64.getDecoder().decode(data.authorizationToken()), StandardCharsets.UTF_8);
            int colon = token.indexOf(':');
            if (colon < 0) {
                throw new SandboxException("Amazon ECR's authorization token for " + registry + " is not user:password");
            }
            return new AuthConfig().withRegistryAddress(registry).withUsername(token.substring(0, colon))
                    .withPassword(token.substring(colon + 1));
        } catch (SdkException | IllegalArgumentException e) {
            throw new SandboxException("cannot log in to Amazon ECR for " + registry + " (region " + region + "): "
                    + e.getMessage(), e);
        }
    }

    /** The registry host's region, else the job's; a clear error when neither says. */
    static String region(String registry, Map<String, String> variables) throws SandboxException {
        Matcher m = ECR_HOST.matcher(registry);
        if (m.matches()) {
            return m.group(1);
        }
        for (String name : new String[] {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
            String value = variables.get(name);
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        throw new SandboxException("cannot tell the AWS region of registry " + registry + ": it is not an "
                + "ACCOUNT.dkr.ecr.REGION.amazonaws.com host; set AWS_REGION in the job's environment");
    }
}
