package dev.gantry.server.notify;

import dev.gantry.notify.Event;
import dev.gantry.notify.Rule;
import dev.gantry.notify.email.EmailChannel;
import dev.gantry.notify.email.EmailDestination;
import dev.gantry.notify.http.OutboundHttp;
import dev.gantry.notify.slack.SlackChannel;
import dev.gantry.notify.slack.SlackDestination;
import dev.gantry.notify.status.CommitStatusChannel;
import dev.gantry.notify.status.Forge;
import dev.gantry.notify.status.ForgeRepository;
import dev.gantry.notify.status.StatusDestination;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.secret.SecretBox;
import java.net.URI;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * A project's notification destinations beside its webhooks: Slack incoming webhooks, e-mail recipients and the
 * commit statuses on its forge, each with its {@link Rule}. Made, changed and removed by the API, their delivery log
 * read and a delivery started over; when an event is recorded, {@link #deliver} (a workflow's) or
 * {@link #deliverBudgetAlert} adds one delivery per destination that wants it, in the event's transaction. Slack
 * URLs and forge tokens are sealed by the {@link SecretBox} with the destination's id as associated data and opened
 * only for a send. Thread-safe.
 */
public final class Destinations {
    /** Destinations per project, webhooks apart. */
    public static final int MAX_PER_PROJECT = 20;

    /** What a destination is, as the API sets it; the fields its kind needs checked. */
    record Spec(String kind, String name, URI slackUrl, List<String> recipients, Forge forge, URI apiUrl,
                String token, Rule rule, boolean budgetAlerts) {
    }

    private final Jdbi jdbi;
    private final SecretBox secrets;
    private final OutboundHttp http;
    private final DeliveryQueue deliveries;
    private final EmailChannel email;
    private final InstantSource clock;

    /** @param email the e-mail channel, or null when no SMTP server is set */
    public Destinations(Jdbi jdbi, SecretBox secrets, OutboundHttp http, DeliveryQueue deliveries, EmailChannel email,
                        InstantSource clock) {
        this.jdbi = jdbi;
        this.secrets = secrets;
        this.http = http;
        this.deliveries = deliveries;
        this.email = email;
        this.clock = clock;
    }

    /** @throws ApiException 404 without such a project, 409 with too many destinations, 400 for a bad spec */
    DestinationDao.DestinationRow create(UUID projectId, String repositoryUrl, Spec spec) {
        return jdbi.inTransaction(h -> {
            Webhooks.lockProject(h, projectId);
            DestinationDao dao = h.attach(DestinationDao.class);
            if (dao.countOf(projectId) >= MAX_PER_PROJECT) {
                throw ApiException.conflict("the project has " + MAX_PER_PROJECT
                        + " notification destinations, the most it may have; delete one first");
            }
            UUID id = UUID.randomUUID();
            OffsetDateTime now = now();
            dao.insert(row(h, id, projectId, repositoryUrl, spec, now, now));
            return dao.find(id).orElseThrow();
        });
    }

    /** Changes the destination as {@code change} says, over its current spec. */
    DestinationDao.DestinationRow update(UUID id, String repositoryUrl,
                                         java.util.function.UnaryOperator<Spec> change) {
        return jdbi.inTransaction(h -> {
            DestinationDao dao = h.attach(DestinationDao.class);
            DestinationDao.DestinationRow current = dao.lock(id).orElseThrow(() -> unknown(id));
            Spec spec = change.apply(spec(h, current));
            dao.update(row(h, id, current.projectId(), repositoryUrl, spec, current.createdAt(), now()));
            return dao.find(id).orElseThrow();
        });
    }

    Optional<DestinationDao.DestinationRow> find(UUID id) {
        return jdbi.withHandle(h -> h.attach(DestinationDao.class).find(id));
    }

    List<DestinationDao.DestinationRow> ofProject(UUID projectId) {
        return jdbi.withHandle(h -> h.attach(DestinationDao.class).ofProject(projectId));
    }

    void delete(UUID id) {
        if (jdbi.inTransaction(h -> h.attach(DestinationDao.class).delete(id)) == 0) {
            throw unknown(id);
        }
    }

    /** The destination's latest deliveries, newest first, each with its attempts. */
    List<DeliveryLog> deliveries(DestinationDao.DestinationRow d) {
        return jdbi.withHandle(h -> DeliveryLog.latest(h, d.kind(), d.id()));
    }

    /**
     * Sends delivery {@code deliveryId} of the destination again ({@link DeliveryLog#redeliver}).
     *
     * @throws ApiException 404 when the destination has no such delivery
     */
    void redeliver(DestinationDao.DestinationRow d, UUID deliveryId) {
        jdbi.useTransaction(h -> DeliveryLog.redeliver(h, deliveries, d.kind(), d.id(), deliveryId, d.projectId(),
                h.attach(DestinationDao.class).organizationOf(d.id()).orElseThrow(() -> unknown(d.id())), now()));
    }

    /**
     * Adds, in {@code h}'s transaction, a delivery of event {@code eventId} to each destination of the project that
     * wants it: commit statuses hear of every workflow start and end on their branches, Slack and e-mail of ends
     * their rule matches ({@code previousStatus}: the last run of the workflow on the branch).
     *
     * @return the new deliveries' ids
     */
    static List<UUID> deliver(Handle h, UUID eventId, UUID projectId, Event.Type type, String status,
                              String previousStatus, String branch, OffsetDateTime now) {
        DestinationDao dao = h.attach(DestinationDao.class);
        return dao.ofProject(projectId).stream().filter(d -> wants(d, type, status, previousStatus, branch))
                .flatMap(d -> dao.insertDelivery(d.kind(), d.id(), eventId, now).stream()).toList();
    }

    /** The Slack and e-mail destinations of {@code organization}'s projects that ask for its budget alerts. */
    static List<DestinationDao.DestinationRow> wantingBudgetAlerts(Handle h, String organization) {
        return h.attach(DestinationDao.class).budgetAlertsOf(organization);
    }

    /**
     * Adds, in {@code h}'s transaction, a delivery of the budget alert {@code eventId} of {@code organization} to each
     * of {@code destinations} ({@link #wantingBudgetAlerts}); commit statuses never hear of them.
     *
     * @return the new deliveries' first turns
     */
    static List<DeliveryQueue.Turn> deliverBudgetAlert(Handle h, UUID eventId, String organization,
                                                      List<DestinationDao.DestinationRow> destinations,
                                                      OffsetDateTime now) {
        DestinationDao dao = h.attach(DestinationDao.class);
        return destinations.stream()
                .flatMap(d -> dao.insertDelivery(d.kind(), d.id(), eventId, now).stream()
                        .map(id -> new DeliveryQueue.Turn(id, d.projectId(), 0, null, organization))).toList();
    }

    static boolean wants(DestinationDao.DestinationRow d, Event.Type type, String status, String previousStatus,
                         String branch) {
        Rule rule = rule(d);
        if (d.kind().equals(CommitStatusChannel.KIND)) {
            return (type == Event.Type.WORKFLOW_STARTED || type == Event.Type.WORKFLOW_COMPLETED)
                    && rule.onBranch(branch);
        }
        return type == Event.Type.WORKFLOW_COMPLETED && rule.matches(status, previousStatus, branch);
    }

    /** The destination of {@code channel} ready for a send, with its organization; empty when it was deleted. */
    Optional<DeliveryWorker.Target<?>> forSending(Handle h, String channel, UUID id) {
        DestinationDao dao = h.attach(DestinationDao.class);
        return dao.find(id).filter(d -> d.kind().equals(channel)).map(d -> {
            String organization = dao.organizationOf(id).orElseThrow();
            return switch (d.kind()) {
                case SlackChannel.KIND -> new DeliveryWorker.Target<>(new SlackChannel(http, clock),
                        new SlackDestination(d.id(), d.name(), URI.create(openSecret(h, d))), organization);
                case CommitStatusChannel.KIND -> new DeliveryWorker.Target<>(new CommitStatusChannel(http, clock),
                        new StatusDestination(d.id(), repository(d), openSecret(h, d)), organization);
                case EmailChannel.KIND -> email == null ? null : new DeliveryWorker.Target<>(email,
                        new EmailDestination(d.id(), d.name(), List.of(d.recipients()), email.settings().host()),
                        organization);
                default -> throw new IllegalStateException("a destination of unknown kind " + d.kind());
            };
        });
    }

    /** A project as the routes need it: its id and repository URL. */
    record ProjectRef(UUID id, String vcsUrl) {
    }

    Optional<ProjectRef> project(ProjectSlug slug) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT id, vcs_url FROM gantry.project WHERE organization = :organization AND name = :name")
                .bind("organization", slug.organization()).bind("name", slug.name())
                .map((rs, ctx) -> new ProjectRef(rs.getObject("id", UUID.class), rs.getString("vcs_url")))
                .findOne());
    }

    Optional<String> organizationOf(UUID id) {
        return jdbi.withHandle(h -> h.attach(DestinationDao.class).organizationOf(id));
    }

    static Rule rule(DestinationDao.DestinationRow d) {
        return new Rule(Rule.When.ofWord(d.notifyWhen()), List.of(d.branches()));
    }

    static ForgeRepository repository(DestinationDao.DestinationRow d) {
        return new ForgeRepository(Forge.ofWord(d.forge()), URI.create(d.apiUrl()), d.repository());
    }

    private DestinationDao.DestinationRow row(Handle h, UUID id, UUID projectId, String repositoryUrl, Spec spec,
                                              OffsetDateTime createdAt, OffsetDateTime now) {
        String[] branches = spec.rule().branches().toArray(String[]::new);
        String when = spec.rule().when().word();
        return switch (spec.kind()) {
            case SlackChannel.KIND -> {
                checkUrl("url", spec.slackUrl());
                RepositoryUrls.Sealed sealed = secrets.seal(h, context(id), spec.slackUrl().toString());
                yield new DestinationDao.DestinationRow(id, projectId, spec.kind(), spec.name(),
                        spec.slackUrl().getHost(), new String[0], null, null, null, sealed.bytes(),
                        sealed.dataKeyId(), when, branches, spec.budgetAlerts(), createdAt, now);
            }
            case EmailChannel.KIND -> {
                if (email == null) {
                    throw ApiException.invalid("kind", "e-mail needs an SMTP server: the server's admin sets "
                            + NotifySettings.SMTP_HOST_VARIABLE + " and " + NotifySettings.SMTP_FROM_VARIABLE);
                }
                yield new DestinationDao.DestinationRow(id, projectId, spec.kind(), spec.name(),
                        email.settings().host(), spec.recipients().toArray(String[]::new), null, null, null, null,
                        null, when, branches, spec.budgetAlerts(), createdAt, now);
            }
            case CommitStatusChannel.KIND -> {
                StringBuilder problem = new StringBuilder();
                ForgeRepository repository = ForgeRepository.of(repositoryUrl, spec.forge(), spec.apiUrl(), problem)
                        .orElseThrow(() -> ApiException.invalid(spec.forge() == null ? "forge" : "api-url",
                                problem.toString()));
                checkUrl("api-url", repository.api());
                RepositoryUrls.Sealed sealed = secrets.seal(h, context(id), spec.token());
                yield new DestinationDao.DestinationRow(id, projectId, spec.kind(), spec.name(),
                        repository.api().getHost(), new String[0], repository.forge().word(),
                        repository.api().toString(), repository.path(), sealed.bytes(), sealed.dataKeyId(), when,
                        branches, false, createdAt, now);
            }
            default -> throw ApiException.invalid("kind", "unknown kind " + ApiException.quote(spec.kind())
                    + "; the kinds are slack, email and commit-status");
        };
    }

    private Spec spec(Handle h, DestinationDao.DestinationRow d) {
        boolean sealed = d.secret() != null;
        String secret = sealed ? openSecret(h, d) : null;
        return new Spec(d.kind(), d.name(), d.kind().equals(SlackChannel.KIND) ? URI.create(secret) : null,
                List.of(d.recipients()), Forge.ofWord(d.forge()), d.apiUrl() == null ? null : URI.create(d.apiUrl()),
                d.kind().equals(CommitStatusChannel.KIND) ? secret : null, rule(d), d.budgetAlerts());
    }

    private String openSecret(Handle h, DestinationDao.DestinationRow d) {
        return secrets.open(h, context(d.id()), d.secretKey(), d.secret());
    }

    /** The URL must be one the outbound client would call: http(s), a host, and an allowed address. */
    private void checkUrl(String field, URI url) {
        http.refusal(url).ifPresent(reason -> {
            throw ApiException.invalid(field, "the URL " + reason);
        });
    }

    private static String context(UUID id) {
        return "notify-destination:" + id;
    }

    private OffsetDateTime now() {
        return clock.instant().atOffset(ZoneOffset.UTC);
    }

    static ApiException unknown(UUID id) {
        return ApiException.notFound("no notification destination with id " + id);
    }
}
