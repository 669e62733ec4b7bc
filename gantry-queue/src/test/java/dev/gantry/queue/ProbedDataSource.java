package dev.gantry.queue;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that watches what goes through it, without changing it: how many connections were asked for
 * (including those that failed), and how many statements whose SQL matches a predicate were executed (including
 * those that failed), with each one's execution time. Tests use it to see that a worker does not spin against an
 * unavailable database, and to time claims.
 */
final class ProbedDataSource implements DataSource {
    private static final Set<String> EXECUTES = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate");

    private final DataSource delegate;
    private final Predicate<String> watched;
    private final LongConsumer nanos;
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong statements = new AtomicLong();

    /**
     * @param watched which statements to count, by their SQL as JDBI prepares it ({@code ?} for parameters)
     * @param nanos   gets the execution time of each watched statement, failed ones included
     */
    ProbedDataSource(DataSource delegate, Predicate<String> watched, LongConsumer nanos) {
        this.delegate = delegate;
        this.watched = watched;
        this.nanos = nanos;
    }

    /** Connections asked for so far. */
    long connections() {
        return connections.get();
    }

    /** Watched statements executed so far. */
    long statements() {
        return statements.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        connections.incrementAndGet();
        return watch(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        connections.incrementAndGet();
        return watch(delegate.getConnection(user, password));
    }

    private Connection watch(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = invoke(connection, method, args);
            if (method.getName().equals("prepareStatement") && args[0] instanceof String sql && watched.test(sql)) {
                return timed((PreparedStatement) result);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class},
                handler);
    }

    private PreparedStatement timed(PreparedStatement statement) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (!EXECUTES.contains(method.getName())) {
                return invoke(statement, method, args);
            }
            statements.incrementAndGet();
            long start = System.nanoTime();
            try {
                return invoke(statement, method, args);
            } finally {
                nanos.accept(System.nanoTime() - start);
            }
        };
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{PreparedStatement.class}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("dev.gantry.queue");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return delegate.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return delegate.isWrapperFor(type);
    }
}
