package dev.gantry.server.status;

import dev.gantry.server.http.ApiException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The incidents in {@code gantry.status_incident}: read by every server, written by the one that leads the status
 * page ({@link #record}), and noted by admins ({@link #addNote}). Writes are idempotent besides: at most one open
 * incident per component (a partial unique index), closing only what is open, and an ended episode recorded only
 * where no incident of its component covers it. Thread-safe.
 */
final class IncidentBook {
    private static final Logger LOG = LoggerFactory.getLogger(IncidentBook.class);
    /** The longest note, as the table's check says. */
    static final int MAX_NOTE = 4000;

    private final Jdbi jdbi;

    IncidentBook(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /**
     * Makes the table say what this server saw: each ended episode closes its open incident (or, when it happened
     * while nothing could be written, is recorded closed), each lasting one has an open incident, raised to its
     * worst state, and an open incident of a component that {@code rows} show operational is closed at {@code now}
     * (it was opened by a server that led before). One transaction.
     */
    void record(Episodes episodes, List<ComponentStatus> rows, Instant now) {
        jdbi.useTransaction(h -> {
            StatusDao dao = h.attach(StatusDao.class);
            for (Episodes.Episode e : episodes.ended()) {
                Optional<StatusDao.IncidentRow> open = dao.openIncident(e.component());
                if (open.isPresent() && !open.get().startedAt().isAfter(e.end())) {
                    raise(dao, open.get(), e.worst(), e.reason(), now);
                    dao.close(open.get().id(), time(e.end()), time(now));
                    LOG.info("Status: incident {} of {} closed", open.get().id(), e.component());
                } else if (!dao.overlaps(e.component(), time(e.start()), time(e.end()))) {
                    UUID id = UUID.randomUUID();
                    dao.insertIncident(id, e.component(), e.name(), e.worst().id(), e.reason(), time(e.start()),
                            time(e.end()), time(now));
                    LOG.info("Status: incident {} of {} recorded after it ended ({})", id, e.component(),
                            e.worst().id());
                }
            }
            Map<String, Episodes.Episode> current = episodes.current();
            for (Episodes.Episode e : current.values()) {
                Optional<StatusDao.IncidentRow> open = dao.openIncident(e.component());
                if (open.isPresent()) {
                    raise(dao, open.get(), e.worst(), e.reason(), now);
                } else {
                    UUID id = UUID.randomUUID();
                    // Another writer may have opened one since the look: the partial unique index keeps it the one.
                    if (dao.insertIncident(id, e.component(), e.name(), e.worst().id(), e.reason(), time(e.start()),
                            null, time(now))) {
                        LOG.warn("Status: incident {} opened: {} is {}: {}", id, e.name(), e.worst().label(),
                                e.reason());
                    }
                }
            }
            for (ComponentStatus row : rows) {
                if (row.state() == ComponentState.OPERATIONAL && !current.containsKey(row.id())) {
                    dao.openIncident(row.id()).ifPresent(open -> {
                        dao.close(open.id(), time(now), time(now));
                        LOG.info("Status: incident {} of {} closed", open.id(), row.id());
                    });
                }
            }
        });
    }

    private static void raise(StatusDao dao, StatusDao.IncidentRow open, ComponentState state, String reason,
                              Instant now) {
        if (state.isWorseThan(ComponentState.ofId(open.worstState()))) {
            dao.worsen(open.id(), state.id(), reason, time(now));
        }
    }

    /** Every open incident and the latest closed ones, with their notes, the latest first. */
    List<Incident> recent(Handle h) {
        StatusDao dao = h.attach(StatusDao.class);
        List<StatusDao.IncidentRow> rows = dao.incidents(StatusReport.HISTORY_LIMIT);
        Map<UUID, List<Incident.Note>> notes = new HashMap<>();
        for (StatusDao.NoteRow n : dao.notes(rows.stream().map(StatusDao.IncidentRow::id).toArray(UUID[]::new))) {
            notes.computeIfAbsent(n.incidentId(), id -> new ArrayList<>())
                    .add(new Incident.Note(n.createdAt(), n.author(), n.message()));
        }
        return rows.stream().map(r -> incident(r, notes.getOrDefault(r.id(), List.of()))).toList();
    }

    /**
     * Adds {@code author}'s note to the incident {@code id} and answers the incident as it is now.
     *
     * @throws ApiException 400 for an empty, over-long or unprintable message, 404 for an unknown incident
     */
    Incident addNote(UUID id, String author, String message, Instant now) {
        String text = checkNote(message);
        return jdbi.inTransaction(h -> {
            StatusDao dao = h.attach(StatusDao.class);
            if (dao.touch(id, time(now)) == 0) {
                throw ApiException.notFound("no incident " + id);
            }
            dao.insertNote(UUID.randomUUID(), id, author, text, time(now));
            StatusDao.IncidentRow row = dao.incident(id).orElseThrow();
            List<Incident.Note> notes = dao.notes(new UUID[] {id}).stream()
                    .map(n -> new Incident.Note(n.createdAt(), n.author(), n.message())).toList();
            return incident(row, notes);
        });
    }

    /** {@code message} stripped, or a 400 saying what is wrong with it. */
    static String checkNote(String message) {
        String text = message == null ? "" : message.strip();
        if (text.isEmpty()) {
            throw ApiException.invalid("message", "message must be a non-empty string");
        }
        if (text.length() > MAX_NOTE) {
            throw ApiException.invalid("message", "message is " + text.length() + " characters; at most " + MAX_NOTE);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            // XML 1.0 (the Atom feed) has no place for other control characters, nor for a lone surrogate.
            boolean control = c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0xFFFE || c == 0xFFFF;
            boolean loneSurrogate = Character.isSurrogate(c) && !(Character.isHighSurrogate(c)
                    && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))
                    || Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1)));
            if (control || loneSurrogate) {
                throw ApiException.invalid("message", "message has a control character at " + i
                        + "; only printable text, line breaks and tabs");
            }
        }
        return text;
    }

    private static Incident incident(StatusDao.IncidentRow r, List<Incident.Note> notes) {
        return new Incident(r.id(), r.component(), r.componentName(), ComponentState.ofId(r.worstState()), r.reason(),
                r.startedAt(), r.endedAt(), r.updatedAt(), notes);
    }

    private static OffsetDateTime time(Instant at) {
        return at.atOffset(ZoneOffset.UTC);
    }
}
