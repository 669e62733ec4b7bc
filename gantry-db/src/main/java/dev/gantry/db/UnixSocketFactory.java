package dev.gantry.db;

import javax.net.SocketFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Lets pgjdbc reach PostgreSQL through a Unix socket, with the JDK's own Unix-domain channels: a JDBC URL with
 * {@code socketFactory=dev.gantry.db.UnixSocketFactory&socketFactoryArg=/path/.s.PGSQL.5432} connects to that socket
 * file, whatever host and port it names. {@link #jdbcUrl} writes such a URL. Public because pgjdbc instantiates it by
 * name; immutable.
 */
public final class UnixSocketFactory extends SocketFactory {
    private final Path socketFile;

    /** @param socketFile the socket's path: pgjdbc passes the {@code socketFactoryArg} parameter */
    public UnixSocketFactory(String socketFile) {
        if (socketFile == null || socketFile.isBlank()) {
            throw new IllegalArgumentException(UnixSocketFactory.class.getName() + " needs the path of PostgreSQL's "
                    + "socket in the socketFactoryArg parameter, like socketFactoryArg=/path/.s.PGSQL.5432");
        }
        this.socketFile = Path.of(socketFile);
    }

    /**
     * A JDBC URL for {@code database} through {@code socketFile}. The host and port in it only say which server it is
     * ({@code localhost} and the port in the socket's name); SSL is off, as pointless on a local socket.
     */
    public static String jdbcUrl(Path socketFile, int port, String database) {
        // pgjdbc percent-decodes parameter values; '/' needs no escape, and leaving it makes the URL readable in logs.
        String path = URLEncoder.encode(socketFile.toString(), StandardCharsets.UTF_8).replace("%2F", "/");
        return "jdbc:postgresql://localhost:" + port + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8)
                + "?socketFactory=" + UnixSocketFactory.class.getName() + "&socketFactoryArg=" + path
                + "&sslmode=disable";
    }

    @Override
    public Socket createSocket() throws IOException {
        return new UnixDomainSocket(socketFile);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return connected();
    }

    private Socket connected() throws IOException {
        Socket socket = createSocket();
        socket.connect(null);
        return socket;
    }
}
