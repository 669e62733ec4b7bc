package dev.gantry.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A {@link Socket} over the JDK's own Unix-domain {@link SocketChannel} (no native library), with what pgjdbc uses of
 * a socket: connect, the two streams, buffer sizes, and a read timeout ({@link #setSoTimeout}). pgjdbc needs that
 * timeout (its {@code socketTimeout}, and 1 ms reads to see whether a notification is pending) and a blocking channel
 * cannot have one, so the channel is non-blocking and waits in a {@link Selector}. TCP's options are accepted and
 * ignored. Any other method of {@code Socket} fails, since no TCP socket stands behind this one.
 *
 * <p>Used as pgjdbc uses a socket: one thread at a time reads or writes; {@link #close()} may come from any thread
 * and wakes a waiting reader.
 */
final class UnixDomainSocket extends Socket {
    private final Path file;
    private final InputStream input = new ChannelInput();
    private final OutputStream output = new ChannelOutput();
    private volatile SocketChannel channel;
    private volatile Selector selector;
    private volatile SelectionKey key;
    private volatile boolean closed;
    private volatile int timeoutMillis;
    private volatile boolean tcpNoDelay;
    private volatile boolean keepAlive;

    UnixDomainSocket(Path file) throws SocketException {
        super((SocketImpl) null);
        this.file = file;
    }

    /** Connects to the socket file; {@code endpoint} (pgjdbc's host and port) and the timeout do not apply. */
    @Override
    public synchronized void connect(SocketAddress endpoint, int timeout) throws IOException {
        if (closed) {
            throw new SocketException("Socket is closed");
        }
        if (channel != null) {
            throw new SocketException("Already connected to " + file);
        }
        SocketChannel opened = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            opened.connect(UnixDomainSocketAddress.of(file));
            opened.configureBlocking(false);
            Selector waiting = Selector.open();
            key = opened.register(waiting, 0);
            selector = waiting;
            channel = opened;
        } catch (IOException failure) {
            opened.close();
            // Not a ConnectException: pgjdbc would then blame the host, the port and TCP/IP.
            throw new SocketException("Cannot connect to PostgreSQL's Unix socket " + file + ": "
                    + failure.getMessage(), failure);
        }
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        connect(endpoint, 0);
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        throw new SocketException("A Unix socket to PostgreSQL binds to no local address");
    }

    @Override
    public InputStream getInputStream() throws IOException {
        connected();
        return input;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        connected();
        return output;
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout must not be negative, got " + timeout);
        }
        timeoutMillis = timeout;
    }

    @Override
    public int getSoTimeout() {
        return timeoutMillis;
    }

    @Override
    public void setTcpNoDelay(boolean on) {
        tcpNoDelay = on;
    }

    @Override
    public boolean getTcpNoDelay() {
        return tcpNoDelay;
    }

    @Override
    public void setKeepAlive(boolean on) {
        keepAlive = on;
    }

    @Override
    public boolean getKeepAlive() {
        return keepAlive;
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        setChannelOption(StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return channelOption(StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        setChannelOption(StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return channelOption(StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    public boolean isConnected() {
        return channel != null;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void shutdownInput() throws IOException {
        connected().shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        connected().shutdownOutput();
    }

    /** Closes the channel; a thread waiting to read or write is woken and gets a {@link SocketException}. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (channel != null) {
                channel.close();
            }
        } finally {
            if (selector != null) {
                selector.close();
            }
        }
    }

    @Override
    public String toString() {
        return "UnixDomainSocket[" + file + (closed ? ", closed" : channel != null ? ", connected" : "") + "]";
    }

    private SocketChannel connected() throws SocketException {
        if (closed) {
            throw new SocketException("Socket is closed");
        }
        SocketChannel current = channel;
        if (current == null) {
            throw new SocketException("Socket is not connected");
        }
        return current;
    }

    private <T> void setChannelOption(SocketOption<T> option, T value) throws SocketException {
        try {
            connected().setOption(option, value);
        } catch (SocketException failure) {
            throw failure;
        } catch (IOException failure) {
            throw new SocketException(failure.getMessage(), failure);
        }
    }

    private <T> T channelOption(SocketOption<T> option) throws SocketException {
        try {
            return connected().getOption(option);
        } catch (SocketException failure) {
            throw failure;
        } catch (IOException failure) {
            throw new SocketException(failure.getMessage(), failure);
        }
    }

    /**
     * Waits until the channel is ready for {@code operation}, at most until {@code deadline} (as
     * {@link System#nanoTime()}; 0 means no limit). May return early; the caller tries again.
     */
    private void await(int operation, long deadline) throws IOException {
        long waitMillis = 0;
        if (deadline != 0) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new SocketTimeoutException("Read timed out after " + timeoutMillis + " ms on " + file);
            }
            waitMillis = Math.max(1, (remaining + 999_999) / 1_000_000);
        }
        try {
            key.interestOps(operation);
            selector.select(waitMillis);
            selector.selectedKeys().clear();
        } catch (ClosedSelectorException | CancelledKeyException closedMeanwhile) {
            throw new SocketException("Socket closed");
        }
        if (closed) {
            throw new SocketException("Socket closed");
        }
    }

    private final class ChannelInput extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, bytes.length);
            if (length == 0) {
                return 0;
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
            int timeout = timeoutMillis;
            long deadline = timeout == 0 ? 0 : System.nanoTime() + timeout * 1_000_000L;
            while (true) {
                int read = connected().read(buffer);
                if (read != 0) {
                    return read;
                }
                await(SelectionKey.OP_READ, deadline);
            }
        }

        @Override
        public void close() throws IOException {
            UnixDomainSocket.this.close();
        }
    }

    private final class ChannelOutput extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, bytes.length);
            ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
            while (buffer.hasRemaining()) {
                if (connected().write(buffer) == 0) {
                    // Writes have no timeout, as on a TCP socket; a full buffer waits for the server to read.
                    await(SelectionKey.OP_WRITE, 0);
                }
            }
        }

        @Override
        public void close() throws IOException {
            UnixDomainSocket.this.close();
        }
    }
}
