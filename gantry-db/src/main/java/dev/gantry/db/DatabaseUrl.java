package dev.gantry.db;

import java.io.ByteArrayOutputStream;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a PostgreSQL server is and how to log in: a JDBC URL plus an optional user and password.
 *
 * <p>{@link #parse} takes what operators put in {@code GANTRY_DATABASE_URL}: a {@code jdbc:postgresql://…} URL, kept
 * exactly as given (credentials, if any, stay in its query), or a libpq-style
 * {@code postgres://user:pass@host:port/db?sslmode=require} (also {@code postgresql://}), turned into a JDBC URL plus
 * a percent-decoded user and password. Hosts may be names, IPv4 or bracketed IPv6 addresses, or a comma-separated
 * list; a missing port means 5432; query parameters are passed to the driver unchanged.
 *
 * <p>Immutable and thread-safe. {@link #toString()} masks the password, also one given as a {@code password=} query
 * parameter, so an instance can be logged.
 */
public final class DatabaseUrl {
    /** The port used when a {@code postgres://} URL names none. */
    public static final int DEFAULT_PORT = 5432;

    private static final String JDBC_PREFIX = "jdbc:postgresql://";
    private static final String MASK = "****";
    private static final String ENCODING_HINT =
            " (percent-encode special characters in the user or password, e.g. '@' as %40, '/' as %2F, '#' as %23)";
    private static final Pattern QUERY_PASSWORD = Pattern.compile("([?&]password=)[^&]*", Pattern.CASE_INSENSITIVE);

    private final String jdbcUrl;
    private final String user;
    private final String password;

    private DatabaseUrl(String jdbcUrl, String user, String password) {
        this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        this.user = user;
        this.password = password;
    }

    /**
     * A JDBC URL with explicit credentials, for servers Gantry starts itself.
     *
     * @param user     the role to log in as, or {@code null} to leave it to the driver
     * @param password the password, or {@code null} for none
     * @throws IllegalArgumentException if {@code jdbcUrl} does not start with {@code jdbc:postgresql://}
     */
    public static DatabaseUrl of(String jdbcUrl, String user, String password) {
        if (!jdbcUrl.startsWith(JDBC_PREFIX) || JdbcParts.of(jdbcUrl) == null) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host/database URL: " + mask(jdbcUrl));
        }
        return new DatabaseUrl(jdbcUrl, user, password);
    }

    /**
     * Reads a URL in either form.
     *
     * @throws InvalidSettingException naming {@code GANTRY_DATABASE_URL} and what is wrong; the message never contains
     *                                 the password
     */
    public static DatabaseUrl parse(String text) {
        Objects.requireNonNull(text, "text");
        String lower = text.toLowerCase(Locale.ROOT);
        if (text.startsWith(JDBC_PREFIX)) {
            JdbcParts parts = JdbcParts.of(text);
            if (parts == null) {
                throw invalid("must name a database after the host, like jdbc:postgresql://host:5432/gantry", text);
            }
            return new DatabaseUrl(text, null, null);
        }
        if (lower.startsWith("postgres://") || lower.startsWith("postgresql://")) {
            return parseLibpqUrl(text);
        }
        throw invalid("must start with jdbc:postgresql://, postgres:// or postgresql://", text);
    }

    /** The JDBC URL to hand to the driver or a pool; may itself carry credentials in its query. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user to log in as, when given apart from the JDBC URL. */
    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** The password, when given apart from the JDBC URL. Never log it; log this object instead. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /** The database name, decoded; empty if the URL names none (the driver then uses the user name). */
    public String database() {
        return URLDecoder.decode(JdbcParts.of(jdbcUrl).database(), StandardCharsets.UTF_8);
    }

    /** The same server, credentials and parameters, but another database on it. */
    public DatabaseUrl withDatabase(String database) {
        JdbcParts parts = JdbcParts.of(jdbcUrl);
        String encoded = URLEncoder.encode(database, StandardCharsets.UTF_8);
        return new DatabaseUrl(JDBC_PREFIX + parts.hosts() + "/" + encoded + parts.query(), user, password);
    }

    /** The JDBC URL with any password masked, followed by the user and whether a password is set. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(mask(jdbcUrl));
        if (user != null || password != null) {
            text.append(" (user ").append(user == null ? "from the URL" : user);
            text.append(password == null ? ", no password)" : ", password " + MASK + ")");
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DatabaseUrl that && jdbcUrl.equals(that.jdbcUrl) && Objects.equals(user, that.user)
                && Objects.equals(password, that.password);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jdbcUrl, user, password);
    }

    /**
     * {@code text} with its passwords masked: the value of a {@code password=} parameter and, in a
     * {@code postgres://} URL, whatever follows the user up to the last '@' (so that a password with unencoded special
     * characters is masked too).
     */
    static String mask(String text) {
        String masked = text;
        int start = text.indexOf("://") + 3;
        int at = text.lastIndexOf('@');
        if (!text.startsWith("jdbc:") && start >= 3 && at >= start) {
            int colon = text.indexOf(':', start);
            masked = colon >= 0 && colon < at
                    ? text.substring(0, colon + 1) + MASK + text.substring(at)
                    : text;
        }
        return QUERY_PASSWORD.matcher(masked).replaceAll("$1" + MASK);
    }

    private static DatabaseUrl parseLibpqUrl(String text) {
        if (text.indexOf('#') >= 0) {
            throw invalid("must not contain '#'" + ENCODING_HINT, text);
        }
        String rest = text.substring(text.indexOf("://") + 3);
        int authorityEnd = indexOfAny(rest, "/?");
        String authority = rest.substring(0, authorityEnd);
        String path = rest.substring(authorityEnd);
        int queryStart = path.indexOf('?');
        String query = queryStart < 0 ? "" : path.substring(queryStart);
        String database = (queryStart < 0 ? path : path.substring(0, queryStart)).replaceFirst("^/", "");

        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), "user", text);
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), "password", text);
            user = user.isEmpty() ? null : user;
        }
        List<String> hosts = new ArrayList<>();
        for (String host : authority.substring(at + 1).split(",", -1)) {
            hosts.add(hostAndPort(host, text));
        }
        String encodedDatabase = URLEncoder.encode(decode(database, "database name", text), StandardCharsets.UTF_8);
        return new DatabaseUrl(JDBC_PREFIX + String.join(",", hosts) + "/" + encodedDatabase + query, user, password);
    }

    private static String hostAndPort(String hostPort, String text) {
        String host;
        String port;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw invalid("has an IPv6 address without its closing ']'", text);
            }
            host = hostPort.substring(0, close + 1);
            String after = hostPort.substring(close + 1);
            if (!after.isEmpty() && !after.startsWith(":")) {
                throw invalid("has unexpected text after the IPv6 address " + host + ENCODING_HINT, text);
            }
            port = after.isEmpty() ? "" : after.substring(1);
        } else {
            int colon = hostPort.indexOf(':');
            if (colon >= 0 && hostPort.indexOf(':', colon + 1) >= 0) {
                throw invalid("has an IPv6 address that is not in brackets, like postgres://[::1]:5432/gantry", text);
            }
            host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            port = colon < 0 ? "" : hostPort.substring(colon + 1);
        }
        if (host.isEmpty() || host.equals("[]")) {
            throw invalid("names no host, like postgres://user:pass@db.example.com:5432/gantry" + ENCODING_HINT, text);
        }
        return host + ":" + (port.isEmpty() ? DEFAULT_PORT : checkPort(port, text));
    }

    private static int checkPort(String port, String text) {
        try {
            int number = Integer.parseInt(port);
            if (number >= 1 && number <= 65535) {
                return number;
            }
        } catch (NumberFormatException notANumber) {
            // reported below, with the rule
        }
        throw invalid("has a port that is not a number from 1 to 65535" + ENCODING_HINT, text);
    }

    /** Percent-decoding as in RFC 3986: unlike form decoding, '+' stays '+'. */
    private static String decode(String encoded, String what, String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c != '%') {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            int value = i + 2 < encoded.length() ? parseHexByte(encoded.substring(i + 1, i + 3)) : -1;
            if (value < 0) {
                throw invalid("has an invalid percent-escape in the " + what + " (write '%' itself as %25)", text);
            }
            bytes.write(value);
            i += 2;
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int parseHexByte(String twoChars) {
        int high = Character.digit(twoChars.charAt(0), 16);
        int low = Character.digit(twoChars.charAt(1), 16);
        return high < 0 || low < 0 ? -1 : high * 16 + low;
    }

    private static int indexOfAny(String text, String chars) {
        for (int i = 0; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return text.length();
    }

    private static InvalidSettingException invalid(String problem, String text) {
        return new InvalidSettingException(DatabaseSetting.DATABASE_URL, problem + ", got '" + mask(text) + "'");
    }

    /** A {@code jdbc:postgresql://hosts/database?query} URL split into its parts, database and query still encoded. */
    private record JdbcParts(String hosts, String database, String query) {
        /** Returns {@code null} if the URL has no '/' after its hosts. */
        static JdbcParts of(String jdbcUrl) {
            String rest = jdbcUrl.substring(JDBC_PREFIX.length());
            int slash = rest.indexOf('/');
            int question = rest.indexOf('?');
            if (slash < 0 || (question >= 0 && question < slash) || slash == 0) {
                return null;
            }
            String afterSlash = rest.substring(slash + 1);
            int queryStart = afterSlash.indexOf('?');
            return queryStart < 0
                    ? new JdbcParts(rest.substring(0, slash), afterSlash, "")
                    : new JdbcParts(rest.substring(0, slash), afterSlash.substring(0, queryStart),
                            afterSlash.substring(queryStart));
        }
    }
}
