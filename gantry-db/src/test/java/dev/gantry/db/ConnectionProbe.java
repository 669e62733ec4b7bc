package dev.gantry.db;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * Run as another user by {@link OtherLocalUserSecurityIT}: tries one way into PostgreSQL and prints one line, either
 * {@code CONNECTED <detail>} or {@code REFUSED <exception or SQLState>: <message>}. Needs nothing but the JDK and
 * pgjdbc, which that user can be given to read.
 *
 * <pre>
 * ConnectionProbe socket /path/.s.PGSQL.5432          connect to the Unix socket, nothing more
 * ConnectionProbe jdbc URL USER [PASSWORD]            log in with pgjdbc and ask who we are
 * </pre>
 */
public final class ConnectionProbe {
    private ConnectionProbe() {
    }

    public static void main(String[] args) {
        try {
            System.out.println(switch (args[0]) {
                case "socket" -> connectToSocket(Path.of(args[1]));
                case "jdbc" -> logIn(args[1], args[2], args.length > 3 ? args[3] : null);
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            });
        } catch (SQLException refused) {
            System.out.println("REFUSED " + refused.getSQLState() + ": " + refused.getMessage());
        } catch (Exception refused) {
            System.out.println("REFUSED " + refused.getClass().getName() + ": " + refused.getMessage());
        }
    }

    private static String connectToSocket(Path socket) throws Exception {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return "CONNECTED to " + socket;
        }
    }

    private static String logIn(String url, String user, String password) throws SQLException {
        Properties login = new Properties();
        login.setProperty("user", user);
        if (password != null) {
            login.setProperty("password", password);
        }
        try (Connection connection = DriverManager.getConnection(url, login);
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT current_user")) {
            rows.next();
            return "CONNECTED as " + rows.getString(1);
        }
    }
}
