package dev.gantry.agent.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.agent.protocol.TestCase;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JUnitReportsTest {

    @Test
    void a_single_suite_gives_each_case_with_its_result_time_and_message() throws Exception {
        List<TestCase> cases = parse("""
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuite name="calc" tests="4" file="test/calc.py">
                  <properties><property name="x" value="y"/></properties>
                  <testcase classname="calc.Add" name="adds" time="0.012"/>
                  <testcase classname="calc.Add" name="overflows" time="1,204.5">
                    <failure message="assert 1 == 2" type="AssertionError">long trace</failure>
                  </testcase>
                  <testcase classname="calc.Div" name="by zero" file="test/div.py"><error>ZeroDivisionError</error></testcase>
                  <testcase classname="calc.Div" name="later" time="nan"><skipped/></testcase>
                  <system-out>noise</system-out>
                </testsuite>""");

        assertThat(cases).containsExactly(
                new TestCase("calc.Add", "adds", "test/calc.py", "success", 0.012, null),
                new TestCase("calc.Add", "overflows", "test/calc.py", "failure", 1204.5, "assert 1 == 2\nlong trace"),
                new TestCase("calc.Div", "by zero", "test/div.py", "error", 0, "ZeroDivisionError"),
                new TestCase("calc.Div", "later", "test/calc.py", "skipped", 0, null));
    }

    @Test
    void a_body_that_repeats_the_message_attribute_is_kept_alone() throws Exception {
        List<TestCase> cases = parse("""
                <testsuite><testcase classname="t.T" name="eq">
                  <failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="AssertionFailedError">AssertionFailedError: expected: &lt;1&gt; but was: &lt;2&gt;
                    at t.T.eq(T.java:9)</failure>
                </testcase></testsuite>""");

        assertThat(cases.get(0).message()).isEqualTo("AssertionFailedError: expected: <1> but was: <2>\n"
                + "    at t.T.eq(T.java:9)");
    }

    @Test
    void nested_suites_under_testsuites_are_all_read_in_document_order() throws Exception {
        List<TestCase> cases = parse("""
                <testsuites>
                  <testsuite name="outer">
                    <testcase classname="o" name="first"/>
                    <testsuite name="inner" file="inner.js"><testcase classname="i" name="deep"/></testsuite>
                  </testsuite>
                  <testsuite name="second"><testcase name="no-classname"/></testsuite>
                </testsuites>""");

        assertThat(cases).extracting(TestCase::name).containsExactly("first", "deep", "no-classname");
        assertThat(cases.get(1).file()).isEqualTo("inner.js");
        assertThat(cases.get(2).classname()).isEmpty();
        assertThat(cases.get(2).file()).isNull();
    }

    @Test
    void malformed_or_foreign_xml_is_not_a_report() {
        assertThatThrownBy(() -> parse("<testsuite><testcase name='x'>")).isInstanceOf(JUnitReports.NotAReportException.class)
                .hasMessageStartingWith("not well-formed XML");
        assertThatThrownBy(() -> parse("<project><modelVersion/></project>"))
                .isInstanceOf(JUnitReports.NotAReportException.class).hasMessageContaining("<project>");
        assertThatThrownBy(() -> parse("plain text")).isInstanceOf(JUnitReports.NotAReportException.class);
    }

    @Test
    void a_doctype_is_refused_so_entities_cannot_read_files() {
        assertThatThrownBy(() -> parse("""
                <?xml version="1.0"?>
                <!DOCTYPE testsuite [<!ENTITY x SYSTEM "file:///etc/passwd">]>
                <testsuite><testcase name="&x;"/></testsuite>"""))
                .isInstanceOf(JUnitReports.NotAReportException.class);
    }

    @Test
    void secrets_are_masked_in_every_text_of_a_case_even_where_a_long_message_is_cut() throws Exception {
        String secret = "s3cr3t-value-4711";
        String padding = "x".repeat(JUnitReports.MAX_MESSAGE - 5);
        String xml = "<testsuite file='t/" + secret + ".py'><testcase classname='c." + secret + "' name='uses "
                + secret + "'><failure message='" + padding + secret + "'/></testcase></testsuite>";

        List<TestCase> cases = JUnitReports.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)),
                SecretMasker.of(List.of(secret)));

        TestCase c = cases.getFirst();
        assertThat(List.of(c.classname(), c.name(), c.file())).containsExactly("c.********", "uses ********",
                "t/********.py");
        assertThat(c.message()).startsWith(padding).doesNotContain("s3cr");
    }

    private static List<TestCase> parse(String xml) throws Exception {
        return JUnitReports.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }
}
