package dev.gantry.server;

import dev.gantry.db.DatabaseUrl;
import dev.gantry.db.InvalidSettingException;
import dev.gantry.server.admission.AdmissionSettings;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.dispatch.DispatchSettings;
import dev.gantry.server.notify.NotifySettings;
import dev.gantry.server.project.RepositoryPolicy;
import dev.gantry.server.retention.RetentionSettings;
import dev.gantry.server.secret.MasterKeys;
import dev.gantry.server.status.StatusSettings;
import dev.gantry.server.storage.S3Settings;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the server listens. Read them with {@link #fromEnvironment} or start from {@link #defaults()}; every value is
 * checked when the settings are made, and a bad one is never replaced by a default.
 *
 * @param host  the address the server binds to ({@code GANTRY_HOST}); {@link #HOST}, the loopback interface, by
 *              default, so that nothing is exposed until the operator says so; {@code 0.0.0.0} (or {@code ::}) for
 *              every interface, so that agents on other machines can reach it
 * @param port  the HTTP port ({@code GANTRY_PORT}); 0 picks a free port, which {@link GantryServer#port()} then
 *              reports
 * @param agent the agent protocol's timings ({@code GANTRY_AGENT_…}, see {@link AgentSettings})
 * @param retention how long caches, workspace layers and artifacts are kept ({@code GANTRY_RETENTION_…}, see
 *                  {@link RetentionSettings})
 * @param orbRegistry the orb registry asked for orbs the server's store lacks ({@code GANTRY_ORB_REGISTRY}, CircleCI's
 *                    GraphQL shape, e.g. {@code https://circleci.com/graphql-unstable}); null, the default, for none
 * @param tls   HTTPS on a second port, on the same host ({@code GANTRY_HTTPS_PORT}, {@code GANTRY_TLS_CERT},
 *              {@code GANTRY_TLS_KEY}, see {@link TlsSettings}); null, the default, for HTTP only
 * @param masterKeyFile the file of the master keys that wrap the secrets' data keys
 *                      ({@code GANTRY_MASTER_KEY_FILE}, see {@link dev.gantry.server.secret.MasterKeys}); null, the
 *                      default, for {@code $GANTRY_HOME/master-key}
 * @param repositories  which repositories projects may name ({@code GANTRY_ALLOW_LOCAL_REPOSITORIES},
 *                      {@code GANTRY_ALLOW_PRIVATE_NETWORKS}, see {@link RepositoryPolicy}); by default public hosts
 *                      over https, ssh and git only
 * @param externalUrl   the URL clients reach the server at ({@code GANTRY_EXTERNAL_URL}, e.g. the proxy's
 *                      {@code https://ci.example.com}), which absolute URLs in answers start with, never the request's
 *                      {@code Host}; null, the default, for {@link #localUrl} of where the server listens
 * @param maxPipelineJobs the most jobs a pipeline's workflows may have together, after matrix expansion
 *                        ({@code GANTRY_MAX_PIPELINE_JOBS}, default {@value #DEFAULT_MAX_PIPELINE_JOBS}); a config
 *                        with more errors its pipeline
 * @param blobStore     the S3 bucket caches, workspace layers and artifacts go to, job output then going to the
 *                      database, so that several servers of one database share them ({@code GANTRY_BLOB_STORE},
 *                      {@code GANTRY_S3_…}, see {@link S3Settings}); null, the default, for files under
 *                      {@code $GANTRY_HOME}
 * @param status        how the status page measures: its evaluation period, windows and objectives
 *                      ({@code GANTRY_STATUS_…}, see {@link StatusSettings}); by default every 10 s over 5 and 60 min
 * @param dispatch      when dispatch pauses itself on database distress and how it ramps back
 *                      ({@code GANTRY_DISTRESS_…}, {@code GANTRY_DISPATCH_…}, see {@link DispatchSettings})
 * @param admission     the API's rate limits per caller and when it sheds low-priority requests
 *                      ({@code GANTRY_RATE_LIMIT_…}, {@code GANTRY_SHED_…}, see {@link AdmissionSettings})
 * @param notifications how webhooks are delivered: timeouts, the guard per destination, the retry window
 *                      ({@code GANTRY_NOTIFY_…}, see {@link NotifySettings})
 * @param queueShards   the PostgreSQL databases notification deliveries are queued on, by project
 *                      ({@code GANTRY_QUEUE_SHARDS}, comma-separated URLs in {@code GANTRY_DATABASE_URL}'s syntax;
 *                      docs/queue.md "Shards"); empty, the default, to queue them on the main database
 */
public record ServerSettings(String host, int port, AgentSettings agent, RetentionSettings retention,
                             URI orbRegistry, TlsSettings tls, Path masterKeyFile, RepositoryPolicy repositories,
                             URI externalUrl, int maxPipelineJobs, S3Settings blobStore,
                             StatusSettings status, DispatchSettings dispatch, AdmissionSettings admission,
                             NotifySettings notifications, List<DatabaseUrl> queueShards) {
    /** The environment variable {@link #orbRegistry()} is read from. */
    public static final String ORB_REGISTRY_VARIABLE = "GANTRY_ORB_REGISTRY";
    /** The environment variable {@link #host()} is read from. */
    public static final String HOST_VARIABLE = "GANTRY_HOST";
    /** The environment variable {@link #port()} is read from. */
    public static final String PORT_VARIABLE = "GANTRY_PORT";
    public static final int DEFAULT_PORT = 8080;
    /** The address the server binds to unless told otherwise: the loopback interface. */
    public static final String HOST = "127.0.0.1";
    /** The rule a host follows, as error messages state it. */
    public static final String HOST_RULE = "must be an IP address or a host name, e.g. 0.0.0.0 for every interface";
    private static final Pattern HOST_PATTERN = Pattern.compile("[A-Za-z0-9.:\\-]{1,253}");

    /** The rule a port follows, as error messages state it. */
    public static final String PORT_RULE = "must be 0 (any free port) or an integer from 1 to 65535";

    public ServerSettings {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(repositories, "repositories");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(dispatch, "dispatch");
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(notifications, "notifications");
        queueShards = List.copyOf(queueShards);
        if (!distinct(queueShards)) {
            throw new IllegalArgumentException("the queue shards " + QUEUE_SHARDS_RULE + ", got " + queueShards);
        }
        if (host == null || !HOST_PATTERN.matcher(host).matches()) {
            throw new IllegalArgumentException("host " + HOST_RULE + ", got " + host);
        }
        if (!validPort(port)) {
            throw new IllegalArgumentException("port " + PORT_RULE + ", got " + port);
        }
        if (orbRegistry != null && !validRegistry(orbRegistry)) {
            throw new IllegalArgumentException("the orb registry " + REGISTRY_RULE + ", got " + orbRegistry);
        }
        if (externalUrl != null && !validExternalUrl(externalUrl)) {
            throw new IllegalArgumentException("the external URL " + EXTERNAL_URL_RULE + ", got " + externalUrl);
        }
        if (maxPipelineJobs < 1 || maxPipelineJobs > MAX_PIPELINE_JOBS_LIMIT) {
            throw new IllegalArgumentException("the most jobs of a pipeline " + MAX_PIPELINE_JOBS_RULE + ", got "
                    + maxPipelineJobs);
        }
    }

    /** The environment variable {@link #queueShards()} is read from. */
    public static final String QUEUE_SHARDS_VARIABLE = "GANTRY_QUEUE_SHARDS";
    /** The rule the queue shards follow, as error messages state it. */
    public static final String QUEUE_SHARDS_RULE = "must be distinct PostgreSQL URLs, comma-separated, each in "
            + "GANTRY_DATABASE_URL's syntax";

    /** The environment variable {@link #externalUrl()} is read from. */
    public static final String EXTERNAL_URL_VARIABLE = "GANTRY_EXTERNAL_URL";
    /** The rule an external URL follows, as error messages state it. */
    public static final String EXTERNAL_URL_RULE = "must be an http or https URL with a host and no user, query or "
            + "fragment, e.g. https://ci.example.com";
    /** The environment variable {@link #maxPipelineJobs()} is read from. */
    public static final String MAX_PIPELINE_JOBS_VARIABLE = "GANTRY_MAX_PIPELINE_JOBS";
    public static final int DEFAULT_MAX_PIPELINE_JOBS = 1_000;
    static final int MAX_PIPELINE_JOBS_LIMIT = 100_000;
    /** The rule {@link #maxPipelineJobs()} follows, as error messages state it. */
    public static final String MAX_PIPELINE_JOBS_RULE = "must be a whole number from 1 to " + MAX_PIPELINE_JOBS_LIMIT;

    /** True when {@code url} may be the external URL: absolute http or https, a host, no user, query or fragment. */
    public static boolean validExternalUrl(URI url) {
        return url.isAbsolute() && url.getHost() != null && url.getRawUserInfo() == null
                && url.getRawQuery() == null && url.getRawFragment() == null
                && ("http".equals(url.getScheme()) || "https".equals(url.getScheme()));
    }

    /** The rule an orb registry URL follows, as error messages state it. */
    public static final String REGISTRY_RULE = "must be an http or https URL, e.g. https://circleci.com/graphql-unstable";

    /** True when {@code url} may be an orb registry: absolute, http or https, with a host. */
    public static boolean validRegistry(URI url) {
        return url.isAbsolute() && url.getHost() != null
                && ("http".equals(url.getScheme()) || "https".equals(url.getScheme()));
    }

    /** The loopback interface, {@code port} and {@code agent}, and the default retention. */
    public ServerSettings(int port, AgentSettings agent) {
        this(HOST, port, agent, RetentionSettings.defaults(), null, null, null, RepositoryPolicy.PUBLIC_ONLY, null,
                DEFAULT_MAX_PIPELINE_JOBS, null, StatusSettings.defaults(), DispatchSettings.defaults(),
                AdmissionSettings.defaults(), NotifySettings.defaults(), List.of());
    }

    /** {@code port} and the agent settings' defaults. */
    public ServerSettings(int port) {
        this(port, AgentSettings.defaults());
    }

    /** Every setting at its default: port {@link #DEFAULT_PORT}, {@link AgentSettings#defaults()}. */
    public static ServerSettings defaults() {
        return new ServerSettings(DEFAULT_PORT);
    }

    /**
     * Reads the settings from environment variables, usually {@code System.getenv()}. An unset variable means the
     * default; one set to an empty value is an error, as it usually means a deployment template forgot to fill it in.
     *
     * @throws InvalidServerSettingException naming the variable and its rule
     */
    public static ServerSettings fromEnvironment(Map<String, String> environment) {
        return new ServerSettings(hostFromEnvironment(environment), portFromEnvironment(environment),
                AgentSettings.fromEnvironment(environment), RetentionSettings.fromEnvironment(environment),
                orbRegistryFromEnvironment(environment), TlsSettings.fromEnvironment(environment),
                masterKeyFileFromEnvironment(environment), new RepositoryPolicy(
                        flag(environment, RepositoryPolicy.LOCAL_VARIABLE),
                        flag(environment, RepositoryPolicy.PRIVATE_VARIABLE)),
                externalUrlFromEnvironment(environment), maxPipelineJobsFromEnvironment(environment),
                S3Settings.fromEnvironment(environment), StatusSettings.fromEnvironment(environment),
                DispatchSettings.fromEnvironment(environment), AdmissionSettings.fromEnvironment(environment),
                NotifySettings.fromEnvironment(environment), queueShardsFromEnvironment(environment));
    }

    private static List<DatabaseUrl> queueShardsFromEnvironment(Map<String, String> environment) {
        String text = environment.get(QUEUE_SHARDS_VARIABLE);
        if (text == null) {
            return List.of();
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(QUEUE_SHARDS_VARIABLE + " is set but empty; unset it to queue "
                    + "notifications on the main database");
        }
        String[] urls = text.split(",", -1);
        List<DatabaseUrl> shards = new ArrayList<>(urls.length);
        for (int i = 0; i < urls.length; i++) {
            try {
                shards.add(DatabaseUrl.parse(urls[i].strip()));
            } catch (InvalidSettingException e) {
                // The parser's message names GANTRY_DATABASE_URL, whose syntax applies; it never holds the password.
                throw new InvalidServerSettingException(QUEUE_SHARDS_VARIABLE + " " + QUEUE_SHARDS_RULE + "; URL "
                        + (i + 1) + ": " + e.getMessage());
            }
        }
        if (!distinct(shards)) {
            throw new InvalidServerSettingException(QUEUE_SHARDS_VARIABLE + " " + QUEUE_SHARDS_RULE
                    + "; a database is named twice");
        }
        return shards;
    }

    /** No database twice: two shards on one database would be one queue that both route to. */
    private static boolean distinct(List<DatabaseUrl> shards) {
        return new HashSet<>(shards.stream().map(DatabaseUrl::jdbcUrl).toList()).size() == shards.size();
    }

    private static URI externalUrlFromEnvironment(Map<String, String> environment) {
        String text = environment.get(EXTERNAL_URL_VARIABLE);
        if (text == null) {
            return null;
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(EXTERNAL_URL_VARIABLE + " is set but empty; unset it to use the "
                    + "URL the server listens on");
        }
        try {
            URI url = new URI(text.strip());
            if (validExternalUrl(url)) {
                return url;
            }
        } catch (java.net.URISyntaxException notAUrl) {
            // reported below, like a URL of another scheme
        }
        throw new InvalidServerSettingException(EXTERNAL_URL_VARIABLE + " " + EXTERNAL_URL_RULE + ", got '" + text
                + "'");
    }

    private static int maxPipelineJobsFromEnvironment(Map<String, String> environment) {
        String text = environment.get(MAX_PIPELINE_JOBS_VARIABLE);
        if (text == null) {
            return DEFAULT_MAX_PIPELINE_JOBS;
        }
        try {
            int max = Integer.parseInt(text.strip());
            if (max >= 1 && max <= MAX_PIPELINE_JOBS_LIMIT) {
                return max;
            }
        } catch (NumberFormatException notAWholeNumber) {
            // reported below, like a number out of range
        }
        throw new InvalidServerSettingException(MAX_PIPELINE_JOBS_VARIABLE + " " + MAX_PIPELINE_JOBS_RULE + ", got '"
                + text + "'");
    }

    private static URI orbRegistryFromEnvironment(Map<String, String> environment) {
        String text = environment.get(ORB_REGISTRY_VARIABLE);
        if (text == null) {
            return null;
        }
        try {
            URI url = new URI(text.strip());
            if (validRegistry(url)) {
                return url;
            }
        } catch (java.net.URISyntaxException notAUrl) {
            // reported below, like a URL of another scheme
        }
        throw new InvalidServerSettingException(ORB_REGISTRY_VARIABLE + " " + REGISTRY_RULE + ", got '" + text + "'");
    }

    /** A true/false variable: unset is false. */
    private static boolean flag(Map<String, String> environment, String variable) {
        String text = environment.get(variable);
        if (text == null) {
            return false;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw new InvalidServerSettingException(variable + " is true or false, got '" + text + "'");
        };
    }

    private static Path masterKeyFileFromEnvironment(Map<String, String> environment) {
        String text = environment.get(MasterKeys.FILE_VARIABLE);
        if (text == null) {
            return null;
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(MasterKeys.FILE_VARIABLE + " is set but empty; unset it to use "
                    + "$GANTRY_HOME/master-key");
        }
        return Path.of(text.strip());
    }

    private static String hostFromEnvironment(Map<String, String> environment) {
        String text = environment.get(HOST_VARIABLE);
        if (text == null) {
            return HOST;
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(HOST_VARIABLE + " is set but empty; unset it to use the default "
                    + HOST);
        }
        if (!validHost(text.strip())) {
            throw new InvalidServerSettingException(HOST_VARIABLE + " " + HOST_RULE + ", got '" + text + "'");
        }
        return text.strip();
    }

    private static int portFromEnvironment(Map<String, String> environment) {
        String text = environment.get(PORT_VARIABLE);
        if (text == null) {
            return DEFAULT_PORT;
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(PORT_VARIABLE + " is set but empty; unset it to use the default "
                    + DEFAULT_PORT);
        }
        try {
            int port = Integer.parseInt(text.strip());
            if (validPort(port)) {
                return port;
            }
        } catch (NumberFormatException notAnInteger) {
            // reported below, like a number out of range
        }
        throw new InvalidServerSettingException(PORT_VARIABLE + " " + PORT_RULE + ", got '" + text + "'");
    }

    /** These settings with another host. */
    public ServerSettings withHost(String host) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with another port. */
    public ServerSettings withPort(int port) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with other agent timings. */
    public ServerSettings withAgent(AgentSettings agent) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with another orb registry, or null for none. */
    public ServerSettings withOrbRegistry(URI orbRegistry) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with other retention periods. */
    public ServerSettings withRetention(RetentionSettings retention) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with another repository policy. */
    public ServerSettings withRepositories(RepositoryPolicy repositories) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with HTTPS on {@code tls}'s port, or null for HTTP only. */
    public ServerSettings withTls(TlsSettings tls) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with another external URL, or null for where the server listens. */
    public ServerSettings withExternalUrl(URI externalUrl) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with another most jobs of a pipeline. */
    public ServerSettings withMaxPipelineJobs(int maxPipelineJobs) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /**
     * These settings with blobs in the S3 bucket {@code blobStore} (and job output in the database), or null for
     * files under {@code $GANTRY_HOME}.
     */
    public ServerSettings withBlobStore(S3Settings blobStore) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with the status page measuring as {@code status} says. */
    public ServerSettings withStatus(StatusSettings status) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with dispatch pausing and ramping as {@code dispatch} says. */
    public ServerSettings withDispatch(DispatchSettings dispatch) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings with the API's admission control as {@code admission} says. */
    public ServerSettings withAdmission(AdmissionSettings admission) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission,
                notifications, queueShards);
    }

    /** These settings delivering notifications as {@code notifications} says. */
    public ServerSettings withNotifications(NotifySettings notifications) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission, notifications, queueShards);
    }

    /** These settings queueing notification deliveries on {@code queueShards} (empty: on the main database). */
    public ServerSettings withQueueShards(List<DatabaseUrl> queueShards) {
        return new ServerSettings(host, port, agent, retention, orbRegistry, tls, masterKeyFile, repositories,
                externalUrl, maxPipelineJobs, blobStore, status, dispatch, admission, notifications, queueShards);
    }

    /** True when {@code host} follows {@link #HOST_RULE} (as far as its characters tell). */
    public static boolean validHost(String host) {
        return host != null && HOST_PATTERN.matcher(host).matches();
    }

    /**
     * Where a client on this machine reaches a server bound to {@code host} on {@code port}: the loopback address
     * when it listens on every interface.
     */
    public static URI localUrl(String host, int port) {
        String reachable = host.equals("0.0.0.0") || host.equals("::") ? HOST : host;
        return URI.create("http://" + (reachable.contains(":") ? "[" + reachable + "]" : reachable) + ":" + port);
    }

    /** True when {@code port} follows {@link #PORT_RULE}. */
    public static boolean validPort(int port) {
        return port >= 0 && port <= 65535;
    }
}
