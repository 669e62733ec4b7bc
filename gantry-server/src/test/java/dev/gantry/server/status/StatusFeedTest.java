package dev.gantry.server.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.http.ApiException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** The Atom feed is well-formed XML whatever an admin writes in a note, and says what each incident was. */
class StatusFeedTest {
    static final Instant T0 = Instant.parse("2026-12-05T21:00:00Z");

    @Test
    void each_incident_is_an_entry_with_a_stable_id_its_last_change_and_its_notes_escaped() throws Exception {
        UUID id = UUID.fromString("5034460f-c7c4-4c43-9457-de07e2029e7b");
        Incident incident = new Incident(id, "job-starts/large", "Job starts: large", ComponentState.PARTIAL_OUTAGE,
                "p95 start latency 11m over the last 5 min against an objective of 2m", T0, T0.plusSeconds(600),
                T0.plusSeconds(700), List.of(new Incident.Note(T0.plusSeconds(700), "admin",
                "<script>alert('x')</script> & \"more\" \u0007 ]]> done")));
        StatusReport report = new StatusReport(T0.plusSeconds(800), ComponentState.OPERATIONAL, List.of(),
                List.of(incident), Duration.ofMinutes(5), Duration.ofMinutes(60), null);

        String xml = AtomFeed.write(report, "https://ci.example.com/status");

        Document feed = parse(xml);
        Element root = feed.getDocumentElement();
        assertThat(root.getNamespaceURI()).isEqualTo(AtomFeed.NAMESPACE);
        assertThat(root.getLocalName()).isEqualTo("feed");
        assertThat(text(root, "id")).isEqualTo("https://ci.example.com/status.atom");
        assertThat(text(root, "updated")).isEqualTo("2026-12-05T21:11:40Z");
        Element entry = (Element) root.getElementsByTagNameNS(AtomFeed.NAMESPACE, "entry").item(0);
        assertThat(text(entry, "id")).isEqualTo("urn:uuid:" + id);
        assertThat(text(entry, "title")).isEqualTo("Job starts: large: partial outage (resolved)");
        assertThat(text(entry, "published")).isEqualTo("2026-12-05T21:00:00Z");
        assertThat(text(entry, "updated")).isEqualTo("2026-12-05T21:11:40Z");
        assertThat(text(entry, "content"))
                .contains("resolved 2026-12-05 21:10:00 UTC after 10m")
                .contains("admin: <script>alert('x')</script> & \"more\"  ]]> done");
        assertThat(xml).doesNotContain("<script>");
    }

    @Test
    void a_note_must_be_printable_text_of_at_most_4000_characters() {
        assertThat(IncidentBook.checkNote("  looking into it\n(ops)  ")).isEqualTo("looking into it\n(ops)");
        assertThatThrownBy(() -> IncidentBook.checkNote(" ")).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> IncidentBook.checkNote("bell \u0007")).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> IncidentBook.checkNote("x".repeat(4001))).isInstanceOf(ApiException.class);
        assertThat(IncidentBook.checkNote("ok \uD83D\uDE80")).isEqualTo("ok \uD83D\uDE80");
        assertThatThrownBy(() -> IncidentBook.checkNote("half \uD83D")).isInstanceOf(ApiException.class);
    }

    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    static String text(Element parent, String name) {
        var nodes = parent.getElementsByTagNameNS(AtomFeed.NAMESPACE, name);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
    }
}
