package dev.gantry.agent.task;

import dev.gantry.agent.protocol.TestCase;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads JUnit XML reports: a {@code <testsuites>} or {@code <testsuite>} root, suites nested to any depth, and
 * {@code <testcase>} elements whose {@code <failure>}, {@code <error>} or {@code <skipped>} child gives the result
 * (none means success). {@code time} is seconds (missing or unreadable is 0); a case's {@code file} falls back to
 * its nearest suite's. DTDs and external entities are refused. Stateless and thread-safe.
 */
final class JUnitReports {
    /** Longer failure texts are cut: the server keeps a message, not a log. */
    static final int MAX_MESSAGE = 16 * 1024;

    /** A file that is not a JUnit report; the message says why, for the output. */
    static final class NotAReportException extends Exception {
        NotAReportException(String message) {
            super(message);
        }
    }

    private JUnitReports() {
    }

    static List<TestCase> parse(InputStream xml) throws NotAReportException, IOException {
        return parse(xml, SecretMasker.NONE);
    }

    /** The cases, every text in them masked by {@code masker} (before a long message is cut, so no part is left). */
    static List<TestCase> parse(InputStream xml, SecretMasker masker) throws NotAReportException, IOException {
        Element root;
        try {
            root = builder().parse(xml).getDocumentElement();
        } catch (SAXException e) {
            throw new NotAReportException("not well-formed XML: " + e.getMessage());
        }
        String tag = root.getTagName();
        if (!tag.equals("testsuites") && !tag.equals("testsuite")) {
            throw new NotAReportException("the root element is <" + tag + ">, not <testsuites> or <testsuite>");
        }
        List<TestCase> out = new ArrayList<>();
        suite(root, null, masker, out);
        return out;
    }

    private static void suite(Element suite, String inheritedFile, SecretMasker masker, List<TestCase> out) {
        String file = attribute(suite, "file", inheritedFile);
        for (Node n = suite.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                switch (e.getTagName()) {
                    case "testsuite" -> suite(e, file, masker, out);
                    case "testcase" -> out.add(testCase(e, file, masker));
                    default -> { } // properties, system-out and the like
                }
            }
        }
    }

    private static TestCase testCase(Element e, String suiteFile, SecretMasker masker) {
        String result = "success";
        String message = null;
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element child && isOutcome(child.getTagName())) {
                result = child.getTagName().equals("failure") ? "failure" : child.getTagName();
                message = message(child, masker);
                break;
            }
        }
        return new TestCase(masker.mask(attribute(e, "classname", "")), masker.mask(attribute(e, "name", "")),
                masker.mask(attribute(e, "file", suiteFile)), result, seconds(e.getAttribute("time")), message);
    }

    private static boolean isOutcome(String tag) {
        return tag.equals("failure") || tag.equals("error") || tag.equals("skipped");
    }

    /**
     * The outcome's message attribute and its body (usually the stack trace), as CircleCI's Tests tab shows both: the
     * body alone when it already repeats the attribute, as JUnit's and pytest's reports do.
     */
    private static String message(Element outcome, SecretMasker masker) {
        String attribute = outcome.getAttribute("message").strip();
        String body = outcome.getTextContent() == null ? "" : outcome.getTextContent().strip();
        String text = body.contains(attribute) ? body : body.isEmpty() ? attribute : attribute + "\n" + body;
        text = masker.mask(text).strip();
        if (text.isEmpty()) {
            return null;
        }
        return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + "…";
    }

    private static double seconds(String time) {
        try {
            double t = Double.parseDouble(time.replace(",", "").strip());
            return Double.isFinite(t) && t >= 0 ? t : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String attribute(Element e, String name, String fallback) {
        return e.hasAttribute(name) ? e.getAttribute(name) : fallback;
    }

    private static DocumentBuilder builder() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(new DefaultHandler()); // throws on fatal errors and prints nothing for junk files
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser supports secure processing", e);
        }
    }
}
