package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.auth.TokenHash;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.secret.Secrets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Registers agents and hands them tasks. A claim is one transaction: the {@link TaskMatcher} picks and locks a queued
 * task, which moves to {@code running} under a new lease (its job too, if it was queued), and the assignment is read.
 * With nothing to hand out, the claim waits for a {@link TaskWakeups} signal, re-checking every {@link #RECHECK_EVERY}
 * for tasks that another server process queued, until the poll timeout. Thread-safe; a waiting claim blocks its
 * thread, so the routes run claims on virtual threads.
 */
final class Claims {
    /** How often a waiting claim looks again without a wake-up: tasks queued by another process are found so. */
    static final Duration RECHECK_EVERY = Duration.ofSeconds(1);

    private final Jdbi jdbi;
    private final AgentSettings settings;
    private final TaskMatcher matcher;
    private final TaskWakeups wakeups;
    private final InstantSource clock;
    private final OpenClaims claiming;
    private final Secrets secrets;
    private final RepositoryUrls repositoryUrls;

    /**
     * @param secrets        the project's and contexts' variables each assignment carries
     * @param repositoryUrls the repository URLs' credentials, which the agent's checkout needs
     */
    Claims(Jdbi jdbi, AgentSettings settings, TaskMatcher matcher, TaskWakeups wakeups, OpenClaims claiming,
           Secrets secrets, RepositoryUrls repositoryUrls, InstantSource clock) {
        this.claiming = claiming;
        this.secrets = secrets;
        this.repositoryUrls = repositoryUrls;
        this.jdbi = jdbi;
        this.settings = settings;
        this.matcher = matcher;
        this.wakeups = wakeups;
        this.clock = clock;
    }

    /** A new agent's id. {@code diskGb} is null when the agent did not say. */
    UUID register(String name, int cpu, int memoryMb, Integer diskGb, String pool) {
        return register(name, cpu, memoryMb, diskGb, pool, null, null, null).id();
    }

    /** A registered agent; {@code repeated} when an earlier registration with the same key had made it. */
    record Registered(UUID id, boolean repeated) {
    }

    /**
     * A new agent, or, for a {@code key} (null: none) an agent was registered with already, that agent with
     * {@code credential} replacing its own: the same registration sent again after its answer was lost.
     * {@code credential} (null: none) is the hash of the credential its calls will carry, {@code registrationToken}
     * the organization's registration token it registered with (null: the server's).
     *
     * @throws ApiException 409 when {@code key} registered an agent of another name, pool or registration token
     */
    Registered register(String name, int cpu, int memoryMb, Integer diskGb, String pool, TokenHash credential,
                        UUID registrationToken, String key) {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = now().atOffset(ZoneOffset.UTC);
        byte[] hash = credential == null ? null : credential.bytes();
        return jdbi.inTransaction(h -> {
            AgentDao agents = h.attach(AgentDao.class);
            if (agents.insert(id, name, cpu, memoryMb, diskGb, pool, now, hash, registrationToken, key) == 1) {
                return new Registered(id, false);
            }
            AgentDao.KeyedAgent first = agents.registeredWith(key).orElseThrow(() -> new IllegalStateException(
                    "registration key " + key + " conflicted with no agent"));
            if (!first.name().equals(name) || !first.pool().equals(pool)
                    || !Objects.equals(first.registrationTokenId(), registrationToken)) {
                throw ApiException.conflict("this Idempotency-Key registered agent " + first.name() + " of pool "
                        + first.pool() + " (or with another registration token); send a new key for another agent");
            }
            agents.replaceCredential(first.id(), hash, now);
            return new Registered(first.id(), true);
        });
    }

    /**
     * A task for {@code agentId}, waiting up to the poll timeout for one; empty when none came or the server is
     * stopping.
     *
     * @throws ApiException 404 for an unknown agent
     */
    Optional<ObjectNode> claim(UUID agentId, FreeResources free) throws InterruptedException {
        claiming.opened(agentId);
        try {
            return awaitTask(agentId, free);
        } finally {
            claiming.closed(agentId);
        }
    }

    private Optional<ObjectNode> awaitTask(UUID agentId, FreeResources free) throws InterruptedException {
        Instant deadline = clock.instant().plus(settings.pollTimeout());
        for (boolean first = true; ; first = false) {
            long generation = wakeups.generation();
            Optional<ObjectNode> assignment = look(agentId, free, first);
            if (assignment.isPresent() || wakeups.closed()) {
                return assignment;
            }
            Duration left = Duration.between(clock.instant(), deadline);
            if (left.isNegative() || left.isZero()) {
                return Optional.empty();
            }
            wakeups.await(generation, left.compareTo(RECHECK_EVERY) < 0 ? left : RECHECK_EVERY);
        }
    }

    /**
     * One look for a task in a transaction of its own, without waiting: what each turn of a claim's long poll does
     * (and the deterministic simulation test calls directly, having no threads to wait on). {@code firstLook} also
     * checks that the agent exists.
     *
     * @throws ApiException 404 for an unknown agent on a first look
     */
    Optional<ObjectNode> look(UUID agentId, FreeResources free, boolean firstLook) {
        return jdbi.inTransaction(h -> tryClaim(h, agentId, free, firstLook));
    }

    /**
     * One look for a task. The agent is marked seen (and checked to exist) on the claim's first look, and on later
     * looks once a heartbeat interval, as a busy agent's heartbeats mark it: an idle agent long-polling any server
     * stays live in every server's fleet snapshot (three heartbeats) without writing its row at each re-check.
     */
    private Optional<ObjectNode> tryClaim(Handle h, UUID agentId, FreeResources free, boolean firstLook) {
        Instant now = now();
        AgentDao agents = h.attach(AgentDao.class);
        if (firstLook && agents.seen(agentId, now.atOffset(ZoneOffset.UTC)) == 0) {
            throw ApiException.notFound("no agent " + agentId + "; register again");
        }
        if (!firstLook) {
            agents.touch(agentId, now.atOffset(ZoneOffset.UTC),
                    now.minus(settings.heartbeatInterval()).atOffset(ZoneOffset.UTC));
        }
        Optional<TaskKey> picked = matcher.pick(h, new TaskMatcher.Claimant(agentId, free));
        if (picked.isEmpty()) {
            return Optional.empty();
        }
        TaskKey task = picked.get();
        UUID lease = UUID.randomUUID();
        TaskDao tasks = h.attach(TaskDao.class);
        int started = tasks.start(task.jobId(), task.nodeIndex(), agentId, lease,
                now.plus(settings.leaseTimeout()).atOffset(ZoneOffset.UTC), now.atOffset(ZoneOffset.UTC));
        if (started != 1) {
            // The matcher locked the row while it was queued; nothing else can have moved it.
            throw new IllegalStateException("task " + task + " was picked but " + started + " rows started");
        }
        tasks.startJob(task.jobId(), now.atOffset(ZoneOffset.UTC));
        AssignmentDao.Row row = h.attach(AssignmentDao.class).find(task.jobId())
                .orElseThrow(() -> new IllegalStateException("job " + task.jobId() + " of a claimed task vanished"));
        return Optional.of(Assignment.json(lease, task, row, repositoryUrls.fetchable(h, row.projectId(),
                row.vcsUrl()), secrets.forJob(h, row.projectId(), row.organization(), Assignment.contexts(row),
                row.actor())));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
