package dev.gantry.server.orb;

import dev.gantry.config.CompileResult;
import dev.gantry.config.ConfigCompiler;
import dev.gantry.config.Limits;
import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.orb.OrbResolver;
import dev.gantry.config.orb.OrbVersions;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.JsonBody;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orbs this server serves, in its database, and the compiler's {@link OrbResolver} on the server. With an
 * {@link UpstreamRegistry}, a version it lacks is asked for there and kept; a moving reference ({@code @5},
 * {@code @volatile}) is asked there at most once per {@link #MOVING_TTL}, and served from the store when the
 * registry cannot be reached. A release ({@code X.Y.Z}) is immutable: publishing it again with
 * the same source changes nothing, with another source is refused. A dev version ({@code dev:LABEL}) may be
 * published over. Every source is read as the compiler reads an imported orb before it is stored, so a malformed one
 * (not YAML, sections of the wrong shape, imports of orbs the store lacks) is refused with its file:line:column, not
 * found later by each pipeline that uses it; errors inside a command or job show where a config uses it. Thread-safe.
 */
public final class OrbStore implements OrbResolver {
    private static final Logger LOG = LoggerFactory.getLogger(OrbStore.class);
    /** How long the registry's answer for a moving reference is used before it is asked again. */
    static final Duration MOVING_TTL = Duration.ofMinutes(5);

    /** Namespaces and orb names as CircleCI's registry allows them. */
    private static final Pattern SEGMENT = Pattern.compile("[a-z0-9][a-z0-9_-]{0,99}");
    /** The API's body limit; published orbs are at most a few hundred kB packed. */
    public static final int MAX_SOURCE_BYTES = JsonBody.MAX_BYTES;

    /** How a publish went. */
    public enum Outcome { CREATED, UNCHANGED, REPLACED }

    /** Where a version came from, as stored. */
    public enum Origin {
        PUBLISHED, IMPORTED, UPSTREAM;

        String word() {
            return name().toLowerCase();
        }
    }

    private final Jdbi jdbi;
    private final InstantSource clock;
    private final UpstreamRegistry upstream;
    private final Map<String, Moved> moving = new ConcurrentHashMap<>();

    private record Moved(String version, Instant until) {
    }

    /** @param upstream the registry asked for what the store lacks, or null for none */
    public OrbStore(Jdbi jdbi, InstantSource clock, UpstreamRegistry upstream) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.upstream = upstream;
    }

    /**
     * @throws UpstreamRegistry.UnavailableException when the orb is not in the store and the registry cannot say
     */
    @Override
    public Optional<OrbSource> resolve(String namespace, String name, String version) {
        if (!SEGMENT.matcher(namespace).matches() || !SEGMENT.matcher(name).matches()
                || !OrbVersions.isReference(version)) {
            return Optional.empty();
        }
        String reference = namespace + "/" + name + "@" + version;
        if (upstream != null && !OrbVersions.isExact(version)) {
            Moved known = moving.get(reference);
            if (known == null || known.until().isBefore(clock.instant())) {
                try {
                    known = fromUpstream(namespace, name, reference).map(v -> new Moved(v,
                            clock.instant().plus(MOVING_TTL))).orElse(null);
                    if (known != null) {
                        moving.put(reference, known);
                    }
                } catch (UpstreamRegistry.UnavailableException e) {
                    LOG.warn("{}; using the orb store's own versions for {}", e.getMessage(), reference);
                    known = null;
                }
            }
            Optional<StoredOrb> picked = known == null ? Optional.empty() : find(namespace, name, known.version());
            if (picked.isPresent()) {
                return picked.map(OrbStore::source);
            }
        }
        Optional<String> chosen = OrbVersions.choose(versions(namespace, name), version);
        if (chosen.isPresent()) {
            return find(namespace, name, chosen.get()).map(OrbStore::source);
        }
        if (upstream != null) {
            return fromUpstream(namespace, name, reference).flatMap(v -> find(namespace, name, v))
                    .map(OrbStore::source);
        }
        return Optional.empty();
    }

    @Override
    public List<String> available(String namespace, String name) {
        return versions(namespace, name);
    }

    @Override
    public String describe() {
        return "the orb store" + (upstream == null ? "" : " or the orb registry " + upstream.url());
    }

    @Override
    public String missingHint(String namespace, String name, String version) {
        return "publish it with 'gantry orb publish FILE " + namespace + "/" + name + "@X.Y.Z' or 'gantry orb import "
                + "PATH'" + (upstream == null ? ", or give the server an upstream registry (--orb-registry URL)" : "");
    }

    /** Asks the registry for {@code reference} and keeps what it gives; the exact version, if it has one. */
    private Optional<String> fromUpstream(String namespace, String name, String reference) {
        Optional<UpstreamRegistry.Fetched> fetched;
        try {
            fetched = upstream.fetch(reference);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UpstreamRegistry.UnavailableException("interrupted while asking for " + reference, e);
        }
        if (fetched.isEmpty()) {
            return Optional.empty();
        }
        String version = fetched.get().version();
        try {
            publish(namespace, name, version, fetched.get().source(), Origin.UPSTREAM);
        } catch (ApiException e) {
            // A release the store already holds with another source: the store's own copy wins, as published here.
            LOG.warn("the orb registry {} gave {}/{}@{}, which is not stored: {}", upstream.url(), namespace, name,
                    version, e.getMessage());
        }
        return Optional.of(version);
    }

    private static OrbSource source(StoredOrb orb) {
        return new OrbSource(orb.fullName() + "@" + orb.version() + ".yml", orb.version(), orb.source());
    }

    /**
     * Stores {@code source} as {@code namespace/name@version}.
     *
     * @throws ApiException 400 for a bad name, version or source, 409 when the release exists with another source
     */
    public Outcome publish(String namespace, String name, String version, String source, Origin origin) {
        checkName(namespace, name);
        if (!OrbVersions.isExact(version)) {
            throw ApiException.invalid("version", "an orb version is X.Y.Z or dev:LABEL, got "
                    + ApiException.quote(version));
        }
        if (source.getBytes(StandardCharsets.UTF_8).length > MAX_SOURCE_BYTES) {
            throw ApiException.tooLarge("an orb's source may be at most " + MAX_SOURCE_BYTES + " bytes");
        }
        String reference = namespace + "/" + name + "@" + version;
        checkCompiles(namespace, name, version, source);
        byte[] sha256 = sha256(source);
        var now = clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
        return jdbi.inTransaction(h -> {
            OrbDao dao = h.attach(OrbDao.class);
            if (dao.insert(namespace, name, version, source, sha256, origin.word(), now)) {
                return Outcome.CREATED;
            }
            StoredOrb existing = dao.find(namespace, name, version).orElseThrow();
            if (MessageDigest.isEqual(existing.sha256(), sha256)) {
                return Outcome.UNCHANGED;
            }
            if (dao.replaceDev(namespace, name, version, source, sha256, origin.word(), now)) {
                return Outcome.REPLACED;
            }
            throw ApiException.conflict("orb " + reference + " exists with another source; a release never changes, "
                    + "publish the change as a new version");
        });
    }

    public Optional<StoredOrb> find(String namespace, String name, String version) {
        return jdbi.withExtension(OrbDao.class, dao -> dao.find(namespace, name, version));
    }

    /** The orb's versions, lowest first. */
    public List<String> versions(String namespace, String name) {
        return jdbi.withExtension(OrbDao.class, dao -> dao.versions(namespace, name)).stream()
                .sorted(OrbVersions.ORDER).toList();
    }

    List<OrbDao.Summary> orbs() {
        return jdbi.withExtension(OrbDao.class, OrbDao::orbs);
    }

    /** The exact orb versions the pipeline was compiled with, by the reference its config wrote. */
    public List<OrbDao.Resolution> resolutions(UUID pipelineId) {
        return jdbi.withExtension(OrbDao.class, dao -> dao.resolutions(pipelineId));
    }

    /** @throws ApiException 400 unless both are names CircleCI's registry accepts */
    static void checkName(String namespace, String name) {
        if (!SEGMENT.matcher(namespace).matches() || !SEGMENT.matcher(name).matches()) {
            throw ApiException.badRequest("an orb is namespace/name, each 1-100 lowercase letters, digits, '-' or "
                    + "'_', starting with a letter or digit; got " + ApiException.quote(namespace + "/" + name));
        }
    }

    /**
     * Compiles a config that imports the orb; any error refuses it. The orbs it imports in turn come from this store
     * (and its registry), so they must be there first, as in CircleCI's registry.
     */
    private void checkCompiles(String namespace, String name, String version, String source) {
        String file = namespace + "/" + name + "@" + version + ".yml";
        OrbStore store = this;
        OrbResolver withIt = new OrbResolver() {
            @Override
            public Optional<OrbSource> resolve(String ns, String n, String v) {
                return ns.equals(namespace) && n.equals(name) && v.equals(version)
                        ? Optional.of(new OrbSource(file, version, source)) : store.resolve(ns, n, v);
            }

            @Override
            public List<String> available(String ns, String n) {
                return store.available(ns, n);
            }

            @Override
            public String describe() {
                return store.describe();
            }

            @Override
            public String missingHint(String ns, String n, String v) {
                return "publish " + ns + "/" + n + " first: this orb imports it";
            }
        };
        String probe = "version: 2.1\norbs:\n  probe: " + namespace + "/" + name + "@" + version + "\n"
                + "jobs:\n  probe:\n    docker: [{image: probe}]\n    steps: [checkout]\n"
                + "workflows:\n  probe:\n    jobs: [probe]\n";
        CompileResult result = ConfigCompiler.create(withIt, Limits.DEFAULTS)
                .validate("probe.yml", probe);
        List<Diagnostic> errors = result.errors();
        if (!errors.isEmpty()) {
            throw ApiException.badRequest("orb " + namespace + "/" + name + "@" + version + " does not compile: "
                    + String.join("; ", errors.stream().limit(5).map(Diagnostic::toString).toList())
                    + (errors.size() > 5 ? "; and " + (errors.size() - 5) + " more" : ""));
        }
    }

    static byte[] sha256(String source) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(source.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
