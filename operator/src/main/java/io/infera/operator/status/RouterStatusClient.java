package io.infera.operator.status;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads the routers' view ({@code GET /v1/admin/status}) through the router Service.
 *
 * <p>The URL comes from a template with the placeholders {@code {name}} (the InferaDeployment),
 * {@code {namespace}} and {@code {port}}; the default reaches the router Service by its cluster DNS
 * name. Every call is bounded by {@code timeout} (connect and whole response) and by {@link
 * #MAX_BODY_BYTES}; failures come back as {@link RouterFetch.Unknown}, never as exceptions.
 * Thread-safe.
 */
public final class RouterStatusClient {

  /** In-cluster: the router Service's DNS name. */
  public static final String DEFAULT_URL_TEMPLATE =
      "http://{name}-router.{namespace}.svc:{port}/v1/admin/status";

  /** A status document with thousands of workers stays far below this. */
  public static final int MAX_BODY_BYTES = 8 << 20;

  private final String template;
  private final Duration timeout;
  private final HttpClient http;

  /**
   * @throws IllegalArgumentException if the template does not give an absolute http(s) URL
   */
  public RouterStatusClient(String template, Duration timeout) {
    this.template = Objects.requireNonNull(template, "template");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("router status timeout must be positive, got " + timeout);
    }
    checkTemplate(template);
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /** The URL of one InferaDeployment's router status. */
  public URI url(String name, String namespace, int port) {
    return URI.create(expand(template, name, namespace, port));
  }

  /** Asks the routers of {@code namespace/name}; returns within about {@code timeout}. */
  public RouterFetch fetch(String name, String namespace, int port) {
    return fetch(name, namespace, port, null);
  }

  /**
   * Asks the routers' admin port with the bearer token they require ({@code admin.tokenFile}), or
   * none when {@code token} is null or blank (a Secret not yet read: the router then answers 401,
   * which is reported as unknown, not as an error).
   */
  public RouterFetch fetch(String name, String namespace, int port, String token) {
    URI url;
    try {
      url = url(name, namespace, port);
    } catch (IllegalArgumentException e) {
      return new RouterFetch.Unknown("bad router status URL: " + e.getMessage());
    }
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(url).timeout(timeout).header("Accept", "application/json").GET();
    if (token != null && !token.isBlank()) {
      builder.header("Authorization", "Bearer " + token.strip());
    }
    HttpRequest request = builder.build();
    CompletableFuture<HttpResponse<byte[]>> call =
        http.sendAsync(
            request,
            info ->
                new LimitedBody(
                    MAX_BODY_BYTES, info.headers().firstValueAsLong("content-length").orElse(-1)));
    try {
      // The request timeout covers the headers only; this bounds the body too.
      HttpResponse<byte[]> response = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (response.statusCode() != 200) {
        return new RouterFetch.Unknown(
            "GET " + url.getPath() + " answered HTTP " + response.statusCode());
      }
      return new RouterFetch.Known(
          RouterStatusParser.parse(new String(response.body(), StandardCharsets.UTF_8)));
    } catch (TimeoutException e) {
      call.cancel(true);
      return timedOut();
    } catch (RouterStatusParser.MalformedStatus e) {
      return new RouterFetch.Unknown("malformed router status: " + e.getMessage());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof HttpTimeoutException) {
        return timedOut();
      }
      if (cause instanceof LimitedBody.TooLarge) {
        return new RouterFetch.Unknown("router status larger than " + MAX_BODY_BYTES + " bytes");
      }
      return new RouterFetch.Unknown("router status unreachable: " + describe(cause));
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      return new RouterFetch.Unknown("interrupted");
    }
  }

  private RouterFetch timedOut() {
    return new RouterFetch.Unknown("router status timed out after " + timeout.toMillis() + " ms");
  }

  private static String describe(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getMessage() == null) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return t.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : " (" + m + ")");
  }

  /** Collects a response body, failing (and cancelling) past {@code max} bytes. */
  private static final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {

    static final class TooLarge extends IOException {
      TooLarge() {
        super("body too large");
      }
    }

    private final int max;
    private final boolean announcedTooLarge;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private Flow.Subscription subscription;

    /**
     * @param contentLength the answer's announced length, -1 without one: above {@code max} it is
     *     refused before a byte is read
     */
    LimitedBody(int max, long contentLength) {
      this.max = max;
      this.announcedTooLarge = contentLength > max;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (announcedTooLarge) {
        s.cancel();
        result.completeExceptionally(new TooLarge());
        return;
      }
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer b : items) {
        if (out.size() + (long) b.remaining() > max) {
          subscription.cancel();
          result.completeExceptionally(new TooLarge());
          return;
        }
        byte[] chunk = new byte[b.remaining()];
        b.get(chunk);
        out.write(chunk, 0, chunk.length);
      }
    }

    @Override
    public void onError(Throwable t) {
      result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      result.complete(out.toByteArray());
    }
  }

  static String expand(String template, String name, String namespace, int port) {
    return template
        .replace("{name}", name)
        .replace("{namespace}", namespace)
        .replace("{port}", Integer.toString(port));
  }

  /**
   * Checks that {@code template} gives an absolute http(s) URL.
   *
   * @throws IllegalArgumentException naming the template
   */
  public static void checkTemplate(String template) {
    String sample = expand(template, "demo", "default", 8000);
    URI uri;
    try {
      uri = new URI(sample);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "router status URL template '" + template + "' is not a URL: " + e.getMessage());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "router status URL template '"
              + template
              + "' must give an absolute http:// or https:// URL with a host");
    }
  }
}
