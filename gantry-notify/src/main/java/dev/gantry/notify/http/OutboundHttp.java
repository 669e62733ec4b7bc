package dev.gantry.notify.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The product's own client for every outbound HTTP call on a project's behalf (webhooks, Slack and forge
 * statuses). Each call has a connect timeout and a total timeout that covers the body too (a server that sends
 * headers and then stalls is cut off like one that never answers), reads at most {@code maxResponseBytes} of the
 * answer, and goes only to hosts the {@link AddressRule} allows. Redirects are followed only when they keep the
 * method and body (307, 308), at most {@link #MAX_REDIRECTS} times, and only to allowed hosts; any other 3xx is the
 * answer. Thread-safe; one per server.
 */
public final class OutboundHttp {
    /** Redirects followed before the answer counts as a failure. */
    public static final int MAX_REDIRECTS = 3;

    /**
     * @param connectTimeout   how long to wait for a connection
     * @param totalTimeout     how long one request may take in all, from sending to the last byte read
     * @param maxResponseBytes how much of an answer's body is read; the rest is dropped unread
     * @param userAgent        the {@code User-Agent} of a request whose headers name none
     */
    public record Settings(Duration connectTimeout, Duration totalTimeout, int maxResponseBytes, String userAgent) {
        public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
        /** CircleCI documents 10 s for its webhooks. */
        public static final Duration DEFAULT_TOTAL_TIMEOUT = Duration.ofSeconds(10);
        public static final int DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

        public Settings {
            if (connectTimeout.isNegative() || connectTimeout.isZero() || totalTimeout.isNegative()
                    || totalTimeout.isZero() || maxResponseBytes < 0) {
                throw new IllegalArgumentException("outbound HTTP needs positive timeouts and maxResponseBytes >= 0, "
                        + "got " + this);
            }
        }

        public static Settings defaults(String userAgent) {
            return new Settings(DEFAULT_CONNECT_TIMEOUT, DEFAULT_TOTAL_TIMEOUT, DEFAULT_MAX_RESPONSE_BYTES, userAgent);
        }
    }

    /** A POST to send: where, the body and headers; {@code verifyTls} false accepts any certificate. */
    public record Post(URI url, byte[] body, Map<String, String> headers, boolean verifyTls) {
    }

    /**
     * What came back: the status, the start of the body (at most the limit), the URL that answered, and its
     * {@code Location} header if any.
     */
    public record Answer(int status, byte[] body, URI url, Optional<String> location) {
        public boolean success() {
            return status >= 200 && status < 300;
        }
    }

    /** A call that got no answer: refused by the rule, timed out, reset, TLS failure; the reason says which. */
    public static final class CallFailed extends Exception {
        public CallFailed(String reason, Throwable cause) {
            super(reason, cause);
        }
    }

    private final Settings settings;
    private final AddressRule rule;
    private final HttpClient verifying;
    private final HttpClient trusting;

    public OutboundHttp(Settings settings, AddressRule rule) {
        this.settings = settings;
        this.rule = rule;
        this.verifying = client(null);
        this.trusting = client(trustAll());
    }

    public Settings settings() {
        return settings;
    }

    /** Why {@code url} may not be called, or empty: not http(s), no host, or a host the rule refuses. */
    public Optional<String> refusal(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http")) {
            return Optional.of("is not an http:// or https:// URL");
        }
        if (url.getHost() == null || url.getHost().isEmpty()) {
            return Optional.of("has no host");
        }
        if (!rule.allows(url.getHost())) {
            return Optional.of("names a host on a loopback, link-local or private network, which this server does "
                    + "not call (an admin allows it with --allow-private-networks)");
        }
        return Optional.empty();
    }

    /**
     * Sends {@code post} once as a channel's attempt: refused at once (not retryable) when the rule forbids its URL,
     * delivered on 2xx, failed (retryable) on any other answer or none. Times from {@code clock}.
     */
    public dev.gantry.notify.Attempt attempt(Post post, java.time.InstantSource clock) {
        java.time.Instant started = clock.instant();
        long start = System.nanoTime();
        Optional<String> refused = refusal(post.url());
        if (refused.isPresent()) {
            return dev.gantry.notify.Attempt.failed(started, Duration.ZERO, "not sent: the URL " + refused.get(),
                    false);
        }
        try {
            Answer answer = post(post);
            return dev.gantry.notify.Attempt.answered(started, Duration.ofNanos(System.nanoTime() - start),
                    answer.status());
        } catch (CallFailed failed) {
            return dev.gantry.notify.Attempt.failed(started, Duration.ofNanos(System.nanoTime() - start),
                    failed.getMessage(), true);
        }
    }

    /**
     * Sends {@code post}, following allowed 307/308 redirects, within the total timeout.
     *
     * @throws CallFailed when no answer came; the message says why, fit for a delivery log
     */
    public Answer post(Post post) throws CallFailed {
        long deadline = System.nanoTime() + settings.totalTimeout().toNanos();
        URI url = post.url();
        for (int hop = 0; ; hop++) {
            Optional<String> refused = refusal(url);
            if (refused.isPresent()) {
                throw new CallFailed((hop == 0 ? "the URL " : "a redirect to " + url + " ") + refused.get(), null);
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(url)
                    .timeout(remaining(deadline))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(post.body()));
            post.headers().forEach(request::header);
            if (post.headers().keySet().stream().noneMatch("User-Agent"::equalsIgnoreCase)) {
                request.header("User-Agent", settings.userAgent());
            }
            Answer answer = send(post.verifyTls() ? verifying : trusting, request.build(), deadline);
            boolean keepsMethod = answer.status() == 307 || answer.status() == 308;
            Optional<String> location = keepsMethod ? answer.location() : Optional.empty();
            if (location.isEmpty()) {
                return answer;
            }
            if (hop == MAX_REDIRECTS) {
                throw new CallFailed("more than " + MAX_REDIRECTS + " redirects", null);
            }
            url = url.resolve(location.get());
        }
    }

    private Answer send(HttpClient client, HttpRequest request, long deadline) throws CallFailed {
        CompletableFuture<HttpResponse<byte[]>> call = client.sendAsync(request,
                info -> new Limited(settings.maxResponseBytes()));
        try {
            HttpResponse<byte[]> response = call.get(remaining(deadline).toNanos(), TimeUnit.NANOSECONDS);
            return new Answer(response.statusCode(), response.body(), response.uri(),
                    response.headers().firstValue("Location"));
        } catch (TimeoutException e) {
            call.cancel(true); // aborts the exchange: the connection is not left to the stalled server
            throw new CallFailed("timed out after " + settings.totalTimeout().toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof java.net.http.HttpTimeoutException) {
                throw new CallFailed("timed out after " + settings.totalTimeout().toMillis() + " ms", cause);
            }
            if (cause instanceof java.net.http.HttpConnectTimeoutException) {
                throw new CallFailed("no connection within " + settings.connectTimeout().toMillis() + " ms", cause);
            }
            throw new CallFailed(describe(cause), cause);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new CallFailed("interrupted", e);
        }
    }

    private static String describe(Throwable cause) {
        if (cause instanceof java.net.ConnectException) {
            return "connection refused";
        }
        if (cause instanceof javax.net.ssl.SSLException) {
            return "TLS failed: " + cause.getMessage();
        }
        if (cause instanceof IOException) {
            return "connection failed: " + (cause.getMessage() == null ? cause.getClass().getSimpleName()
                    : cause.getMessage());
        }
        return "call failed: " + cause;
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    private HttpClient client(SSLContext tls) {
        HttpClient.Builder builder = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER) // followed by hand, each hop checked against the rule
                .version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            builder.sslContext(tls);
        }
        return builder.build();
    }

    /** For destinations whose owner turned {@code verify-tls} off (a self-signed certificate inside a company). */
    private static SSLContext trustAll() {
        TrustManager trusting = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {trusting}, new SecureRandom());
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no TLS context", e);
        }
    }

    /** Collects at most {@code limit} bytes of a body and cancels the rest of it. */
    private static final class Limited implements HttpResponse.BodySubscriber<byte[]> {
        private final int limit;
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        Limited(int limit) {
            this.limit = limit;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                int take = Math.min(buffer.remaining(), limit - out.size());
                byte[] bytes = new byte[take];
                buffer.get(bytes);
                out.write(bytes, 0, take);
            }
            if (out.size() >= limit && !result.isDone()) {
                result.complete(out.toByteArray());
                subscription.cancel();
            }
        }

        @Override
        public void onError(Throwable error) {
            result.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            result.complete(out.toByteArray());
        }
    }
}
