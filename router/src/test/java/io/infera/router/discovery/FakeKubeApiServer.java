package io.infera.router.discovery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback Kubernetes API server that serves EndpointSlices only: list, and watch as a streaming
 * HTTP response of one JSON event per line. The test mutates slices through {@link #apply} and
 * {@link #delete}; every change gets the next resourceVersion and goes to the open watches whose
 * namespace and label selector match.
 *
 * <p>Like the real API server, a watch from resourceVersion N first replays the changes after N (so
 * nothing is lost between a list and its watch), and a watch without one (or from "0") starts with
 * ADDED for the current state. WebSocket upgrades are answered 200, which makes fabric8 fall back
 * to a plain HTTP watch, the path it takes behind {@code kubectl proxy}.
 */
final class FakeKubeApiServer implements AutoCloseable {

  private static final Pattern PATH =
      Pattern.compile("^/apis/discovery\\.k8s\\.io/v1/(?:namespaces/([^/]+)/)?endpointslices/?$");
  private static final String END = "\u0000end";

  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final HttpServer server;
  private final ExecutorService executor;

  private final Object lock = new Object();
  // Guarded by lock.
  private long resourceVersion = 100;
  private final Map<String, EndpointSlice> slices = new TreeMap<>(); // key: ns/name
  private final List<Change> history = new ArrayList<>();
  private final List<OpenWatch> watches = new ArrayList<>();
  private long compactedTo; // watches from an older resourceVersion get 410 Expired
  private int failWith; // 0, or the HTTP code every request gets
  private boolean closed;

  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger websocketAttempts = new AtomicInteger();

  /** One recorded change: what a watch from an older resourceVersion must replay. */
  private record Change(long rv, String type, String namespace, EndpointSlice object) {}

  private record OpenWatch(
      String namespace, Map<String, String> selector, BlockingQueue<String> lines) {}

  private FakeKubeApiServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /** Starts on a free loopback port. */
  static FakeKubeApiServer start() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger n = new AtomicInteger();
    // Unbounded: every open watch holds a thread for its lifetime.
    ExecutorService executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "fake-kube-api-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    FakeKubeApiServer fake = new FakeKubeApiServer(server, executor);
    server.createContext("/", fake::handle);
    server.setExecutor(executor);
    server.start();
    return fake;
  }

  int port() {
    return server.getAddress().getPort();
  }

  String url() {
    return "http://127.0.0.1:" + port();
  }

  /** Creates or replaces a slice (namespace from its metadata); returns its resourceVersion. */
  long apply(EndpointSlice slice) {
    EndpointSlice copy = serialization.clone(slice);
    String ns = copy.getMetadata().getNamespace();
    if (ns == null || copy.getMetadata().getName() == null) {
      throw new IllegalArgumentException("slice needs metadata.namespace and metadata.name");
    }
    synchronized (lock) {
      long rv = ++resourceVersion;
      copy.getMetadata().setResourceVersion(Long.toString(rv));
      EndpointSlice previous = slices.put(key(ns, copy.getMetadata().getName()), copy);
      publish(new Change(rv, previous == null ? "ADDED" : "MODIFIED", ns, copy));
      return rv;
    }
  }

  /** Deletes a slice; returns false when there was none. */
  boolean delete(String namespace, String name) {
    synchronized (lock) {
      EndpointSlice removed = slices.remove(key(namespace, name));
      if (removed == null) {
        return false;
      }
      long rv = ++resourceVersion;
      EndpointSlice last = serialization.clone(removed);
      last.getMetadata().setResourceVersion(Long.toString(rv));
      publish(new Change(rv, "DELETED", namespace, last));
      return true;
    }
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch. */
  void bookmark() {
    synchronized (lock) {
      Map<String, Object> object = new LinkedHashMap<>();
      object.put("apiVersion", "discovery.k8s.io/v1");
      object.put("kind", "EndpointSlice");
      object.put("metadata", Map.of("resourceVersion", Long.toString(resourceVersion)));
      String line = eventLine("BOOKMARK", object);
      watches.forEach(w -> w.lines().add(line));
    }
  }

  /** Ends every open watch cleanly, as an API server restart or a load balancer would. */
  void dropWatches() {
    synchronized (lock) {
      watches.forEach(w -> w.lines().add(END));
    }
  }

  /** Forgets the change history: a watch from an older resourceVersion gets 410 and relists. */
  void compact() {
    synchronized (lock) {
      history.clear();
      compactedTo = resourceVersion;
    }
  }

  /** Answers every request with {@code code} (e.g. 403 before RBAC is granted); 0 to stop. */
  void failWith(int code) {
    synchronized (lock) {
      failWith = code;
    }
  }

  /** Watches currently streaming. */
  int openWatches() {
    synchronized (lock) {
      return watches.size();
    }
  }

  /** Every request seen, as {@code METHOD path?query}, in arrival order. */
  List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** WebSocket watch attempts (answered 200 so that the client falls back to HTTP). */
  int websocketAttempts() {
    return websocketAttempts.get();
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      watches.forEach(w -> w.lines().add(END));
    }
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // Under lock.
  private void publish(Change change) {
    history.add(change);
    String line = eventLine(change.type(), change.object());
    for (OpenWatch w : watches) {
      if (matches(w.namespace(), w.selector(), change.namespace(), change.object())) {
        w.lines().add(line);
      }
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    String raw = exchange.getRequestURI().getRawPath();
    String query = exchange.getRequestURI().getRawQuery();
    requests.add(exchange.getRequestMethod() + " " + raw + (query == null ? "" : "?" + query));
    try {
      Matcher m = PATH.matcher(raw);
      if (!m.matches()) {
        sendStatus(exchange, 404, "NotFound", "the fake serves only EndpointSlices: " + raw);
        return;
      }
      if (!"GET".equals(exchange.getRequestMethod())) {
        sendStatus(exchange, 405, "MethodNotAllowed", "the fake serves only GET");
        return;
      }
      int fail;
      synchronized (lock) {
        fail = failWith;
      }
      if (fail != 0) {
        String reason = fail == 403 ? "Forbidden" : "InternalError";
        sendStatus(exchange, fail, reason, "failing on purpose with " + fail);
        return;
      }
      String upgrade = exchange.getRequestHeaders().getFirst("Upgrade");
      if (upgrade != null && upgrade.equalsIgnoreCase("websocket")) {
        // fabric8 treats 200 (and 503, but that one is retried first) as "no WebSocket here".
        websocketAttempts.incrementAndGet();
        sendJson(exchange, 200, "{}");
        return;
      }
      Map<String, String> params = parseQuery(query);
      Map<String, String> selector;
      try {
        selector = parseSelector(params.get("labelSelector"));
      } catch (IllegalArgumentException e) {
        sendStatus(exchange, 400, "BadRequest", e.getMessage());
        return;
      }
      String ns = m.group(1) == null ? null : URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
      if ("true".equals(params.get("watch")) || "1".equals(params.get("watch"))) {
        watch(exchange, ns, selector, params);
      } else {
        list(exchange, ns, selector);
      }
    } finally {
      exchange.close();
    }
  }

  private void list(HttpExchange exchange, String ns, Map<String, String> selector)
      throws IOException {
    List<EndpointSlice> items = new ArrayList<>();
    long rv;
    synchronized (lock) {
      rv = resourceVersion;
      for (EndpointSlice s : slices.values()) {
        if (matches(ns, selector, s.getMetadata().getNamespace(), s)) {
          items.add(s);
        }
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("apiVersion", "discovery.k8s.io/v1");
    body.put("kind", "EndpointSliceList");
    body.put("metadata", Map.of("resourceVersion", Long.toString(rv)));
    body.put("items", items);
    sendJson(exchange, 200, serialization.asJson(body));
  }

  private void watch(
      HttpExchange exchange, String ns, Map<String, String> selector, Map<String, String> params)
      throws IOException {
    OpenWatch w = new OpenWatch(ns, selector, new LinkedBlockingQueue<>());
    String from = params.get("resourceVersion");
    synchronized (lock) {
      if (closed) {
        sendStatus(exchange, 503, "ServiceUnavailable", "shutting down");
        return;
      }
      if (from == null || from.isEmpty() || from.equals("0")) {
        for (EndpointSlice s : slices.values()) {
          if (matches(ns, selector, s.getMetadata().getNamespace(), s)) {
            w.lines().add(eventLine("ADDED", s));
          }
        }
      } else if (Long.parseLong(from) < compactedTo) {
        // What the API server does: 200, then one ERROR event carrying a 410 Status.
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("apiVersion", "v1");
        status.put("kind", "Status");
        status.put("status", "Failure");
        status.put("message", "too old resource version: " + from + " (" + compactedTo + ")");
        status.put("reason", "Expired");
        status.put("code", 410);
        w.lines().add(eventLine("ERROR", status));
        w.lines().add(END);
      } else {
        long since = Long.parseLong(from);
        for (Change c : history) {
          if (c.rv() > since && matches(ns, selector, c.namespace(), c.object())) {
            w.lines().add(eventLine(c.type(), c.object()));
          }
        }
      }
      watches.add(w);
    }
    String timeout = params.get("timeoutSeconds");
    long deadline =
        System.nanoTime()
            + (timeout == null
                ? TimeUnit.HOURS.toNanos(1)
                : TimeUnit.SECONDS.toNanos(Long.parseLong(timeout)));
    try {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0); // chunked, open until the deadline or close()
      OutputStream out = exchange.getResponseBody();
      out.flush();
      while (true) {
        String line = w.lines().poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (line == null || line.equals(END)) {
          break;
        }
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // The client went away.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      synchronized (lock) {
        watches.remove(w);
      }
    }
  }

  private String eventLine(String type, Object object) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("type", type);
    event.put("object", object);
    String json = serialization.asJson(event);
    if (json.indexOf('\n') >= 0) {
      throw new IllegalStateException("watch events must be single-line JSON");
    }
    return json;
  }

  private void sendStatus(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("apiVersion", "v1");
    status.put("kind", "Status");
    status.put("status", "Failure");
    status.put("message", message);
    status.put("reason", reason);
    status.put("code", code);
    sendJson(exchange, code, serialization.asJson(status));
  }

  private static void sendJson(HttpExchange exchange, int code, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  private static boolean matches(
      String watchNs, Map<String, String> selector, String ns, EndpointSlice slice) {
    if (watchNs != null && !watchNs.equals(ns)) {
      return false;
    }
    Map<String, String> labels = slice.getMetadata().getLabels();
    for (Map.Entry<String, String> e : selector.entrySet()) {
      if (labels == null || !e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private static String key(String ns, String name) {
    return ns + "/" + name;
  }

  private static Map<String, String> parseQuery(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      params.put(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return params;
  }

  /** Equality-based selectors only ({@code k=v} or {@code k==v}, comma-separated). */
  static Map<String, String> parseSelector(String selector) {
    Map<String, String> terms = new LinkedHashMap<>();
    if (selector == null || selector.isBlank()) {
      return terms;
    }
    for (String term : selector.split(",")) {
      if (term.contains("!=") || !term.contains("=")) {
        throw new IllegalArgumentException("the fake supports only k=v selectors: " + term);
      }
      String[] kv = term.split("==?", 2);
      terms.put(kv[0].trim(), kv[1].trim());
    }
    return terms;
  }
}
