package dev.gantry.server.auth;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Handler;
import java.util.ArrayList;
import java.util.List;

/**
 * The API's route table: every route is added with the {@link Access.Rule} its caller must meet, checked before the
 * handler runs, so a route cannot be added without saying who may call it. The table is what the role matrix test
 * walks.
 */
public final class ApiRoutes {
    /** The methods the API's routes take. */
    public enum Method { GET, POST, PUT, PATCH, DELETE }

    /** One route and what it asks of its caller. */
    public record Route(Method method, String path, Access.Rule rule) {
    }

    private final RoutesConfig routes;
    private final List<Route> table = new ArrayList<>();

    public ApiRoutes(RoutesConfig routes) {
        this.routes = routes;
    }

    public void get(String path, Access.Rule rule, Handler handler) {
        add(Method.GET, path, rule, handler);
    }

    public void post(String path, Access.Rule rule, Handler handler) {
        add(Method.POST, path, rule, handler);
    }

    public void put(String path, Access.Rule rule, Handler handler) {
        add(Method.PUT, path, rule, handler);
    }

    public void patch(String path, Access.Rule rule, Handler handler) {
        add(Method.PATCH, path, rule, handler);
    }

    public void delete(String path, Access.Rule rule, Handler handler) {
        add(Method.DELETE, path, rule, handler);
    }

    public List<Route> table() {
        return List.copyOf(table);
    }

    private void add(Method method, String path, Access.Rule rule, Handler handler) {
        table.add(new Route(method, path, rule));
        Handler checked = ctx -> {
            Access.check(ctx, rule);
            handler.handle(ctx);
        };
        switch (method) {
            case GET -> routes.get(path, checked);
            case POST -> routes.post(path, checked);
            case PUT -> routes.put(path, checked);
            case PATCH -> routes.patch(path, checked);
            case DELETE -> routes.delete(path, checked);
        }
    }
}
