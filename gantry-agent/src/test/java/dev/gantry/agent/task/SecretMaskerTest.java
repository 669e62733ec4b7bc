package dev.gantry.agent.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SecretMaskerTest {
    static final String TOKEN = "s3cr3t-value-4711";
    static final String MASK = SecretMasker.MASK;

    final SecretMasker masker = SecretMasker.of(List.of(TOKEN));

    @Test
    void the_raw_value_is_masked_wherever_it_occurs() {
        assertThat(masker.mask("token=" + TOKEN + " and again " + TOKEN + TOKEN + "\n"))
                .isEqualTo("token=" + MASK + " and again " + MASK + MASK + "\n");
    }

    @Test
    void text_without_a_secret_is_returned_as_it_is() {
        String text = "nothing to see: s3cr3t-value-471 is one short";
        assertThat(masker.mask(text)).isSameAs(text);
        assertThat(SecretMasker.NONE.mask(TOKEN)).isEqualTo(TOKEN);
    }

    @Test
    void base64_as_printf_and_echo_pipe_it_is_masked_with_or_without_padding() {
        String printf = base64(TOKEN);
        String echo = base64(TOKEN + "\n");
        assertThat(printf).endsWith("=");

        assertThat(masker.mask(printf + "\n" + echo + "\n")).isEqualTo(MASK + "\n" + MASK + "\n");
        assertThat(masker.mask("unpadded " + printf.replace("=", "") + ".")).isEqualTo("unpadded " + MASK + ".");
    }

    @Test
    void base64_of_a_long_value_is_masked_as_gnu_base64_wraps_it() {
        String value = "k".repeat(100);
        String encoded = base64(value);
        String wrapped = encoded.substring(0, 76) + "\n" + encoded.substring(76);
        SecretMasker m = SecretMasker.of(List.of(value));

        assertThat(m.mask(wrapped + "\n")).isEqualTo(MASK + "\n");
    }

    @Test
    void url_encoded_forms_are_masked() {
        String value = "p@ss word/+&=~é";
        SecretMasker m = SecretMasker.of(List.of(value));
        String form = URLEncoder.encode(value, StandardCharsets.UTF_8);
        assertThat(form).contains("+").contains("%7E");

        assertThat(m.mask("a=" + form + "&b")).isEqualTo("a=" + MASK + "&b");
        assertThat(m.mask("a=" + form.replace("+", "%20") + "&b")).isEqualTo("a=" + MASK + "&b");
        assertThat(m.mask("a=p%40ss%20word%2F%2B%26%3D~%C3%A9&b")).as("RFC 3986, as jq's @uri and JavaScript encode")
                .isEqualTo("a=" + MASK + "&b");
    }

    @Test
    void values_shorter_than_four_characters_are_not_masked() {
        SecretMasker m = SecretMasker.of(List.of("abc", "é€x", "", "abcd"));

        assertThat(m.mask("abc é€x abcd")).isEqualTo("abc é€x " + MASK);
        assertThat(SecretMasker.forms("abc")).isEmpty();
        assertThat(SecretMasker.of(List.of("abc")).isEmpty()).isTrue();
    }

    @Test
    void a_value_split_across_two_chunks_is_masked_at_every_split_point() {
        byte[] output = ("before " + TOKEN + " after\n").getBytes(StandardCharsets.UTF_8);
        String expected = "before " + MASK + " after\n";
        for (int split = 0; split <= output.length; split++) {
            assertThat(streamed(masker, output, split)).as("split at %d", split).isEqualTo(expected);
        }
    }

    @Test
    void a_value_split_across_three_chunks_is_masked_at_every_pair_of_split_points() {
        byte[] output = ("x" + TOKEN + "y").getBytes(StandardCharsets.UTF_8);
        for (int first = 0; first <= output.length; first++) {
            for (int second = first; second <= output.length; second++) {
                assertThat(streamed(masker, output, first, second)).as("split at %d and %d", first, second)
                        .isEqualTo("x" + MASK + "y");
            }
        }
    }

    @Test
    void output_is_held_back_only_where_a_chunk_ends_like_the_start_of_a_secret() {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        MaskedOutput out = new MaskedOutput(masker, sink::write);

        write(out, "plain line\n");
        assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("plain line\n");
        write(out, "progress s3cr");
        assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("plain line\nprogress ");
        write(out, "ew");
        assertThat(sink.toString(StandardCharsets.UTF_8)).as("not a secret after all")
                .isEqualTo("plain line\nprogress s3crew");
        write(out, " s3");
        out.close();
        assertThat(sink.toString(StandardCharsets.UTF_8)).as("the step's end lets the rest out")
                .isEqualTo("plain line\nprogress s3crew s3");
        write(out, TOKEN);
        assertThat(sink.toString(StandardCharsets.UTF_8)).as("nothing after the end").endsWith(" s3");
    }

    @Test
    void where_values_overlap_the_leftmost_then_the_longest_is_masked() {
        SecretMasker m = SecretMasker.of(List.of("abcdef", "abcdefgh", "cdefghij"));

        assertThat(m.mask("..abcdefgh..")).isEqualTo(".." + MASK + "..");
        assertThat(m.mask("..abcdefg..")).isEqualTo(".." + MASK + "g..");
        assertThat(m.mask("..bcdefghij..")).isEqualTo("..b" + MASK + "..");
        assertThat(streamed(m, "..abcdefgh..".getBytes(StandardCharsets.UTF_8), 8))
                .as("the longer one is waited for across chunks").isEqualTo(".." + MASK + "..");
    }

    @Test
    void regex_metacharacters_in_a_value_are_plain_characters() {
        String value = "a.*b(c)[d]+$^\\1|?{2}";
        SecretMasker m = SecretMasker.of(List.of(value));

        assertThat(m.mask("<" + value + ">")).isEqualTo("<" + MASK + ">");
        assertThat(m.mask("aXXb(c)[d]+$^\\1|?{2}")).isEqualTo("aXXb(c)[d]+$^\\1|?{2}");
    }

    @Test
    void a_multi_line_value_is_masked_whole_and_line_by_line() {
        String value = "-----BEGIN KEY-----\nMIIEvQIBADAN\r\nxy\n-----END KEY-----";
        SecretMasker m = SecretMasker.of(List.of(value));

        assertThat(m.mask("key:\n" + value + "\n")).isEqualTo("key:\n" + MASK + "\n");
        assertThat(m.mask("line MIIEvQIBADAN only")).isEqualTo("line " + MASK + " only");
        assertThat(m.mask("xy stays")).isEqualTo("xy stays");
        assertThat(streamed(m, ("key:\n" + value + "\n").getBytes(StandardCharsets.UTF_8), 30))
                .isEqualTo("key:\n" + MASK + "\n");
    }

    @Test
    void bytes_that_are_not_utf8_pass_through_around_a_masked_value() {
        byte[] token = TOKEN.getBytes(StandardCharsets.UTF_8);
        byte[] output = new byte[token.length + 6];
        output[0] = (byte) 0xff;
        output[1] = (byte) 0xfe;
        output[2] = 0;
        System.arraycopy(token, 0, output, 3, token.length);
        output[token.length + 3] = (byte) 0xc3; // a UTF-8 lead byte without its continuation
        output[token.length + 4] = (byte) 0x80;
        output[token.length + 5] = (byte) 0xc0;

        byte[] expected = new byte[6 + MASK.length()];
        expected[0] = (byte) 0xff;
        expected[1] = (byte) 0xfe;
        expected[2] = 0;
        System.arraycopy(MASK.getBytes(StandardCharsets.UTF_8), 0, expected, 3, MASK.length());
        expected[MASK.length() + 3] = (byte) 0xc3;
        expected[MASK.length() + 4] = (byte) 0x80;
        expected[MASK.length() + 5] = (byte) 0xc0;
        assertThat(masker.mask(output)).isEqualTo(expected);
        for (int split = 0; split <= output.length; split++) {
            assertThat(streamedBytes(masker, output, split)).as("split at %d", split).isEqualTo(expected);
        }
    }

    @Test
    void a_long_output_in_random_chunks_is_masked_as_if_whole() {
        SecretMasker m = SecretMasker.of(List.of(TOKEN, "another-secret", "p@ss word"));
        Random random = new Random(4711);
        StringBuilder text = new StringBuilder();
        List<String> pieces = List.of(TOKEN, "another-secret", base64(TOKEN + "\n"), "p%40ss+word", "s3cr3t-",
                "another", "plain text ", "\n", "é€", "s", "a");
        while (text.length() < 2_000_000) {
            text.append(pieces.get(random.nextInt(pieces.size())));
        }
        byte[] output = text.toString().getBytes(StandardCharsets.UTF_8);
        byte[] whole = m.mask(output);

        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (MaskedOutput out = new MaskedOutput(m, sink::write)) {
            for (int at = 0; at < output.length; ) {
                int n = Math.min(output.length - at, 1 + random.nextInt(8192));
                out.write(output, at, n);
                at += n;
            }
        }

        assertThat(sink.toByteArray()).isEqualTo(whole);
        String masked = new String(whole, StandardCharsets.UTF_8);
        assertThat(masked).contains(MASK, "s3cr3t-", "plain text").doesNotContain(TOKEN, "another-secret",
                "p%40ss+word", base64(TOKEN + "\n"));
    }

    private static String base64(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    private static void write(MaskedOutput out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
    }

    /** {@code output} through a stream in chunks cut at {@code splits}, as a step would print it. */
    private static String streamed(SecretMasker m, byte[] output, int... splits) {
        return new String(streamedBytes(m, output, splits), StandardCharsets.UTF_8);
    }

    private static byte[] streamedBytes(SecretMasker m, byte[] output, int... splits) {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (MaskedOutput out = new MaskedOutput(m, sink::write)) {
            int from = 0;
            for (int split : splits) {
                out.write(output, from, split - from);
                from = split;
            }
            out.write(output, from, output.length - from);
        }
        return sink.toByteArray();
    }
}
