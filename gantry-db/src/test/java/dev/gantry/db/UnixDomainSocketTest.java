package dev.gantry.db;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The socket pgjdbc gets from {@link UnixSocketFactory}, against a plain Unix-domain server of the JDK's. */
class UnixDomainSocketTest {
    @TempDir
    Path directory;

    private Path socketFile;
    private ServerSocketChannel server;

    @BeforeEach
    void listen() throws IOException {
        socketFile = directory.resolve(".s.PGSQL.5432");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX).bind(UnixDomainSocketAddress.of(socketFile));
    }

    @AfterEach
    void stopListening() throws IOException {
        server.close();
    }

    @Test
    void bytes_written_reach_the_server_and_its_answer_is_read_back() throws Exception {
        try (Socket socket = new UnixSocketFactory(socketFile.toString()).createSocket("localhost", 5432);
             SocketChannel accepted = server.accept()) {
            socket.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            ByteBuffer received = ByteBuffer.allocate(4);
            while (received.hasRemaining()) {
                accepted.read(received);
            }
            accepted.write(ByteBuffer.wrap("pong".getBytes(StandardCharsets.US_ASCII)));

            assertThat(new String(received.array(), StandardCharsets.US_ASCII)).isEqualTo("ping");
            assertThat(new String(socket.getInputStream().readNBytes(4), StandardCharsets.US_ASCII))
                    .isEqualTo("pong");
            accepted.close();
            assertThat(socket.getInputStream().read()).as("the server closed its end").isEqualTo(-1);
        }
    }

    @Test
    void a_read_with_a_timeout_gives_up_when_the_server_says_nothing() throws Exception {
        try (Socket socket = connect(); SocketChannel ignored = server.accept()) {
            socket.setSoTimeout(200);
            long start = System.nanoTime();

            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(190),
                    Duration.ofSeconds(5));
            assertThat(socket.isClosed()).as("a timeout leaves the socket usable, as pgjdbc expects").isFalse();
        }
    }

    @Test
    void closing_from_another_thread_wakes_a_reader_waiting_without_a_timeout() throws Exception {
        try (Socket socket = connect(); SocketChannel ignored = server.accept()) {
            InputStream input = socket.getInputStream();
            CompletableFuture<Throwable> reader = CompletableFuture.supplyAsync(() -> {
                try {
                    input.read();
                    return null;
                } catch (IOException expected) {
                    return expected;
                }
            });
            Thread.sleep(200);
            assertThat(reader).isNotDone();

            socket.close();

            assertThat(reader.get(5, TimeUnit.SECONDS)).isInstanceOf(SocketException.class);
            assertThat(socket.isClosed()).isTrue();
        }
    }

    @Test
    void a_missing_socket_is_a_socket_exception_naming_the_file_not_a_refused_tcp_connection() throws IOException {
        server.close();
        Path missing = directory.resolve("gone/.s.PGSQL.5432");

        assertThatThrownBy(() -> new UnixSocketFactory(missing.toString()).createSocket("localhost", 5432))
                .isInstanceOf(SocketException.class).isNotInstanceOf(ConnectException.class)
                .hasMessageContaining("Cannot connect to PostgreSQL's Unix socket " + missing);
    }

    @Test
    void a_jdbc_url_names_the_factory_and_the_socket_readably() {
        assertThat(UnixSocketFactory.jdbcUrl(Path.of("/srv/gantry home/postgres-socket/.s.PGSQL.5432"), 5432, "gantry"))
                .isEqualTo("jdbc:postgresql://localhost:5432/gantry?socketFactory=dev.gantry.db.UnixSocketFactory"
                        + "&socketFactoryArg=/srv/gantry+home/postgres-socket/.s.PGSQL.5432&sslmode=disable");
    }

    private Socket connect() throws IOException {
        Socket socket = new UnixSocketFactory(socketFile.toString()).createSocket();
        socket.connect(null, 1000);
        return socket;
    }
}
