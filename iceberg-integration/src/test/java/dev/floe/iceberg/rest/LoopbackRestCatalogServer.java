package dev.floe.iceberg.rest;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * An Iceberg REST catalog server for tests: the JDK's HTTP server on a free loopback port, serving
 * {@link RestCatalogRoutes} over a backing catalog, JSON written and read as Iceberg's REST client
 * does, and failures as the spec's {@code ErrorResponse} with the status codes the client acts on
 * (404 missing, 409 conflict -- a failed commit's requirement makes the client refresh and retry --,
 * 400 bad request, 500 anything else).
 *
 * <p>A few threads serve requests, so a test can hold one request while others are served (see
 * {@link #beforeNextCommit}). The caller owns both this server ({@link #close()}) and the backing
 * catalog, which the server never closes.
 */
public final class LoopbackRestCatalogServer implements AutoCloseable {
  private static final int THREADS = 4;

  private final HttpServer http;
  private final ExecutorService executor;
  private final RestCatalogRoutes routes;
  private final ObjectMapper json;
  private final Map<Integer, Integer> statusCounts = new ConcurrentHashMap<>();

  private LoopbackRestCatalogServer(HttpServer http, ExecutorService executor, Catalog backing) {
    this.http = http;
    this.executor = executor;
    this.json = restJson();
    this.routes = new RestCatalogRoutes(backing, json);
  }

  /** Starts serving {@code backing} (which must also support namespaces). */
  public static LoopbackRestCatalogServer start(Catalog backing) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "loopback-rest-catalog");
              t.setDaemon(true);
              return t;
            });
    LoopbackRestCatalogServer server = new LoopbackRestCatalogServer(http, executor, backing);
    http.createContext("/", server::serve);
    http.setExecutor(executor);
    http.start();
    return server;
  }

  /** The catalog's base URI, as the REST client's {@code uri} property. */
  public URI uri() {
    InetSocketAddress address = http.getAddress();
    return URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort());
  }

  /** How many responses so far had {@code status} (e.g. 409: commits that lost a race). */
  public int responsesWithStatus(int status) {
    return statusCounts.getOrDefault(status, 0);
  }

  /**
   * Runs {@code action} on the server's thread right before it serves the next commit to {@code
   * table}, once: the way to let another writer commit between a writer's last refresh and its
   * commit, deterministically. The action may itself call this server (other threads serve it).
   */
  public void beforeNextCommit(TableIdentifier table, Runnable action) {
    routes.beforeNextCommit(table, action);
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }

  /** An object mapper configured like the one inside Iceberg's REST client. */
  static ObjectMapper restJson() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(mapper);
    return mapper;
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      RestCatalogRoutes.Reply reply;
      try {
        byte[] body = exchange.getRequestBody().readAllBytes();
        List<String> path = segments(exchange.getRequestURI().getRawPath());
        reply =
            path.isEmpty() || !path.get(0).equals("v1")
                ? null
                : routes.handle(method, path.subList(1, path.size()), query(exchange.getRequestURI().getRawQuery()), body);
        if (reply == null) {
          reply = error(404, "NoSuchRoute", "no route for " + method + " " + exchange.getRequestURI().getPath());
        }
      } catch (RuntimeException e) {
        int status = statusOf(e);
        if (status == 500) {
          e.printStackTrace(); // a server bug or a backing-store failure: show it in the test log
        }
        reply = error(status, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
      }
      send(exchange, method, reply);
    }
  }

  private void send(HttpExchange exchange, String method, RestCatalogRoutes.Reply reply) throws IOException {
    statusCounts.merge(reply.status(), 1, Integer::sum);
    if (reply.body() == null || method.equals("HEAD")) {
      exchange.sendResponseHeaders(reply.status(), -1);
      return;
    }
    byte[] bytes = json.writeValueAsBytes(reply.body());
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(reply.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static RestCatalogRoutes.Reply error(int status, String type, String message) {
    return new RestCatalogRoutes.Reply(
        status, ErrorResponse.builder().responseCode(status).withType(type).withMessage(message).build());
  }

  /** The status the REST spec (and so Iceberg's client error handlers) gives each failure. */
  static int statusOf(RuntimeException e) {
    if (e instanceof NoSuchTableException
        || e instanceof NoSuchNamespaceException
        || e instanceof NoSuchViewException
        || e instanceof NotFoundException) {
      return 404;
    }
    if (e instanceof CommitFailedException
        || e instanceof AlreadyExistsException
        || e instanceof NamespaceNotEmptyException) {
      return 409;
    }
    if (e instanceof NotAuthorizedException) {
      return 401;
    }
    if (e instanceof ForbiddenException) {
      return 403;
    }
    if (e instanceof UnsupportedOperationException) {
      return 406;
    }
    if (e instanceof BadRequestException
        || e instanceof ValidationException
        || e instanceof IllegalArgumentException) {
      return 400;
    }
    // CommitStateUnknownException included: 500 tells the client the commit's outcome is unknown.
    return 500;
  }

  private static List<String> segments(String rawPath) {
    return Arrays.stream(rawPath.split("/")).filter(s -> !s.isEmpty()).toList();
  }

  private static Map<String, String> query(String rawQuery) {
    Map<String, String> out = new HashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return out;
  }
}
