package dev.gantry.server.status;

import java.io.StringWriter;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The incidents of a {@link StatusReport} as an Atom 1.0 feed (RFC 4287), {@code GET /status.atom}: one entry per
 * incident, its id {@code urn:uuid:} and the incident's id, {@code updated} when it was opened, worsened, closed or
 * noted, so a feed reader shows each change. Text goes through the XML writer, which escapes it. Stateless.
 */
final class AtomFeed {
    static final String NAMESPACE = "http://www.w3.org/2005/Atom";
    static final String CONTENT_TYPE = "application/atom+xml; charset=utf-8";
    private static final XMLOutputFactory XML = XMLOutputFactory.newFactory();

    private AtomFeed() {
    }

    /**
     * @param pageUrl the HTML page's absolute URL ({@code …/status}); the feed is at that plus {@code .atom}
     */
    static String write(StatusReport report, String pageUrl) {
        StringWriter out = new StringWriter();
        try {
            XMLStreamWriter xml = XML.createXMLStreamWriter(out);
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeStartElement("feed");
            xml.writeDefaultNamespace(NAMESPACE);
            element(xml, "id", pageUrl + ".atom");
            element(xml, "title", "Gantry status: incidents");
            element(xml, "subtitle", report.headline());
            element(xml, "updated", time(report.incidents().stream().map(Incident::updatedAt).max(Instant::compareTo)
                    .orElse(report.evaluatedAt())));
            link(xml, "self", pageUrl + ".atom", AtomFeed.CONTENT_TYPE.split(";")[0]);
            link(xml, "alternate", pageUrl, "text/html");
            xml.writeStartElement("author");
            element(xml, "name", "Gantry");
            xml.writeEndElement();
            element(xml, "generator", "Gantry");
            for (Incident incident : report.incidents()) {
                entry(xml, incident, pageUrl, report.evaluatedAt());
            }
            xml.writeEndElement();
            xml.writeEndDocument();
            xml.close();
        } catch (XMLStreamException e) {
            // Only the server's own model gets here, writing to memory; a failure is a bug.
            throw new IllegalStateException("cannot write the status feed", e);
        }
        return out.toString();
    }

    private static void entry(XMLStreamWriter xml, Incident incident, String pageUrl, Instant now)
            throws XMLStreamException {
        xml.writeStartElement("entry");
        element(xml, "id", "urn:uuid:" + incident.id());
        element(xml, "title", incident.title());
        element(xml, "published", time(incident.startedAt()));
        element(xml, "updated", time(incident.updatedAt()));
        link(xml, "alternate", pageUrl + "#incident-" + incident.id(), "text/html");
        xml.writeStartElement("category");
        xml.writeAttribute("term", incident.componentId());
        xml.writeAttribute("label", incident.componentName());
        xml.writeEndElement();
        xml.writeStartElement("content");
        xml.writeAttribute("type", "text");
        xml.writeCharacters(clean(content(incident, now)));
        xml.writeEndElement();
        xml.writeEndElement();
    }

    /** The entry's text: when, how bad, why, and the notes. */
    static String content(Incident incident, Instant now) {
        StringBuilder text = new StringBuilder();
        text.append(incident.componentName()).append(": ").append(incident.worstState().label()).append(".\n");
        text.append("Started ").append(Texts.time(incident.startedAt()));
        if (incident.isOpen()) {
            text.append("; ongoing (").append(incident.durationText(now)).append(" so far).\n");
        } else {
            text.append("; resolved ").append(Texts.time(incident.endedAt())).append(" after ")
                    .append(incident.durationText(now)).append(".\n");
        }
        text.append("Why: ").append(incident.reason()).append('\n');
        for (Incident.Note note : incident.notes()) {
            text.append('\n').append(Texts.time(note.at())).append(", ").append(note.author()).append(": ")
                    .append(note.message()).append('\n');
        }
        return text.toString();
    }

    private static void element(XMLStreamWriter xml, String name, String text) throws XMLStreamException {
        xml.writeStartElement(name);
        xml.writeCharacters(clean(text));
        xml.writeEndElement();
    }

    private static void link(XMLStreamWriter xml, String rel, String href, String type) throws XMLStreamException {
        xml.writeEmptyElement("link");
        xml.writeAttribute("rel", rel);
        xml.writeAttribute("type", type);
        xml.writeAttribute("href", href);
    }

    /** Drops what XML 1.0 cannot carry even escaped (notes are checked on the way in; this is the second line). */
    static String clean(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            boolean allowed = c == 0x9 || c == 0xA || c == 0xD || c >= 0x20 && c <= 0xD7FF
                    || c >= 0xE000 && c <= 0xFFFD || c >= 0x10000 && c <= 0x10FFFF;
            if (allowed) {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    private static String time(Instant at) {
        return DateTimeFormatter.ISO_INSTANT.format(at);
    }
}
