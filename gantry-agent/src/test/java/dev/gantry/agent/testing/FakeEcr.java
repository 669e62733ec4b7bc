package dev.gantry.agent.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Amazon ECR's {@code GetAuthorizationToken} on 127.0.0.1, for the agent's {@code aws_auth} logins. It checks each
 * request's Signature Version 4 as AWS does (worked out here from AWS's published algorithm, not with the SDK that
 * signed it) against the secret of the access key it names, and answers a known key with a base64
 * {@code user:password} token, an unknown key or a wrong signature with AWS's error shape and status 400/403.
 */
public final class FakeEcr implements AutoCloseable {
    private static final Pattern AUTHORIZATION = Pattern.compile(
            "AWS4-HMAC-SHA256 Credential=([^/]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), "
                    + "Signature=([0-9a-f]{64})");

    /** One request that reached the fake: the access key and the region it was signed for, and the answer. */
    public record Call(String keyId, String region, int status) { }

    private final HttpServer server;
    private final Map<String, String> secrets = new ConcurrentHashMap<>();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final String token;

    /** Serves {@code user:password} as the token to every key of {@code secrets} (access key id → secret). */
    public FakeEcr(Map<String, String> secrets, String user, String password) throws IOException {
        this.secrets.putAll(secrets);
        this.token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            Matcher auth = AUTHORIZATION.matcher(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            if (!auth.matches() || !"ecr".equals(auth.group(4))) {
                answer(exchange, null, null, 400, error("MissingAuthenticationTokenException",
                        "Missing Authentication Token"));
                return;
            }
            String keyId = auth.group(1);
            String region = auth.group(3);
            String secret = secrets.get(keyId);
            if (secret == null) {
                answer(exchange, keyId, region, 400, error("UnrecognizedClientException",
                        "The security token included in the request is invalid."));
            } else if (!auth.group(6).equals(signature(exchange, body, auth, secret))) {
                answer(exchange, keyId, region, 403, error("InvalidSignatureException", "The request signature we "
                        + "calculated does not match the signature you provided. Check your AWS Secret Access Key "
                        + "and signing method."));
            } else if (!"AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken".equals(target)) {
                answer(exchange, keyId, region, 400, error("UnknownOperationException", "not " + target));
            } else {
                answer(exchange, keyId, region, 200, "{\"authorizationData\":[{\"authorizationToken\":\"" + token
                        + "\",\"expiresAt\":" + Instant.now().plusSeconds(12 * 3600).getEpochSecond()
                        + ",\"proxyEndpoint\":\"https://127.0.0.1:5000\"}]}");
            }
        }
    }

    /** The request's SigV4 signature as AWS computes it: canonical request, string to sign, derived key. */
    private static String signature(HttpExchange exchange, byte[] body, Matcher auth, String secret) {
        List<String> signed = Arrays.asList(auth.group(5).split(";"));
        List<String> canonicalHeaders = new ArrayList<>();
        for (String name : signed) {
            String value = String.join(",", exchange.getRequestHeaders().getOrDefault(name, List.of()));
            canonicalHeaders.add(name + ":" + value.strip().replaceAll(" +", " ") + "\n");
        }
        URI uri = exchange.getRequestURI();
        String canonical = exchange.getRequestMethod() + "\n" + uri.getRawPath() + "\n"
                + (uri.getRawQuery() == null ? "" : uri.getRawQuery()) + "\n" + String.join("", canonicalHeaders)
                + "\n" + auth.group(5) + "\n" + hex(sha256(body));
        String scope = auth.group(2) + "/" + auth.group(3) + "/" + auth.group(4) + "/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + exchange.getRequestHeaders().getFirst("X-Amz-Date") + "\n" + scope
                + "\n" + hex(sha256(canonical.getBytes(StandardCharsets.UTF_8)));
        byte[] key = ("AWS4" + secret).getBytes(StandardCharsets.UTF_8);
        for (String part : new String[] {auth.group(2), auth.group(3), auth.group(4), "aws4_request"}) {
            key = hmac(key, part);
        }
        return hex(hmac(key, toSign));
    }

    private void answer(HttpExchange exchange, String keyId, String region, int status, String json)
            throws IOException {
        calls.add(new Call(keyId, region, status));
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static String error(String type, String message) {
        return "{\"__type\":\"" + type + "\",\"message\":\"" + message + "\"}";
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
