package io.infera.router.hub;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.tokenize.HubNames;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Downloads a model's tokenizer files ({@code GET {endpoint}/{model}/resolve/{revision}/{file}})
 * into a hub cache: {@code tokenizer.json} (required), {@code tokenizer_config.json} and {@code
 * chat_template.jinja} (when the repository has them). The result is the layout the router reads:
 * {@code models--ORG--NAME/snapshots/COMMIT/…} and {@code refs/REVISION} naming COMMIT.
 */
public final class TokenizerFetcher {

  /** One file of a tokenizer, and whether the router cannot do without it. */
  record Wanted(String name, boolean required, Kind kind) {}

  /** How a downloaded file is checked before it is kept. */
  enum Kind {
    JSON_OBJECT,
    TEXT
  }

  static final List<Wanted> FILES =
      List.of(
          new Wanted("tokenizer.json", true, Kind.JSON_OBJECT),
          new Wanted("tokenizer_config.json", false, Kind.JSON_OBJECT),
          new Wanted("chat_template.jinja", false, Kind.TEXT));

  /** A commit as the hub names it in {@code X-Repo-Commit}. */
  private static final Pattern COMMIT_SHA = Pattern.compile("[0-9a-f]{40}");

  /**
   * @param endpoint the hub, e.g. {@code https://huggingface.co} ({@code HF_ENDPOINT})
   * @param token a bearer token, or null for a public model ({@code HF_TOKEN})
   * @param connectTimeout per connection
   * @param fileTimeout per file, headers and whole body (a trickling server is cut off)
   * @param maxFileBytes largest file accepted, by {@code Content-Length} and by bytes received
   * @param maxRedirects redirects followed per file
   */
  public record Settings(
      URI endpoint,
      String token,
      Duration connectTimeout,
      Duration fileTimeout,
      long maxFileBytes,
      int maxRedirects) {

    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    public static final long DEFAULT_MAX_FILE_BYTES = 64L << 20;

    public Settings {
      String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme();
      if (!scheme.equals("https") && !scheme.equals("http") || endpoint.getHost() == null) {
        throw new IllegalArgumentException(
            "hub endpoint must be an http(s) URL with a host, got '" + endpoint + "'");
      }
      if (endpoint.getRawQuery() != null || endpoint.getRawFragment() != null) {
        throw new IllegalArgumentException(
            "hub endpoint must not have a query or fragment, got '" + endpoint + "'");
      }
      if (token != null && (token.isBlank() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e))) {
        throw new IllegalArgumentException(
            "HF_TOKEN must be printable ASCII without spaces (a trailing newline from a file?)");
      }
      if (maxFileBytes < 1 || maxRedirects < 0) {
        throw new IllegalArgumentException("maxFileBytes >= 1 and maxRedirects >= 0 required");
      }
    }

    /** Settings from the environment: {@code HF_ENDPOINT}, {@code HF_TOKEN}. */
    public static Settings fromEnv(Map<String, String> env, Duration fileTimeout, long maxBytes) {
      String endpoint = blankToNull(env.get("HF_ENDPOINT"));
      String token = blankToNull(env.get("HF_TOKEN"));
      if (token == null) {
        token = blankToNull(env.get("HUGGING_FACE_HUB_TOKEN"));
      }
      URI uri;
      try {
        uri = URI.create(endpoint == null ? DEFAULT_ENDPOINT : stripSlash(endpoint));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("HF_ENDPOINT is not a URL: '" + endpoint + "'");
      }
      return new Settings(uri, token, Duration.ofSeconds(10), fileTimeout, maxBytes, 5);
    }

    private static String blankToNull(String s) {
      return s == null || s.isBlank() ? null : s.strip();
    }

    private static String stripSlash(String s) {
      return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }
  }

  /** Where the files went. */
  public record Result(Path snapshot, String commit, List<String> files, long bytes) {}

  private final Settings settings;
  private final HttpClient client;
  private final PrintWriter progress;

  public TokenizerFetcher(Settings settings, PrintWriter progress) {
    this.settings = settings;
    this.progress = progress;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(settings.connectTimeout())
            // Followed by hand: the token must not travel to a CDN host, and loops are counted.
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * Fetches {@code model} at {@code revision} into {@code hubCache} (the directory holding {@code
   * models--…}, i.e. {@code $HF_HUB_CACHE}). An existing snapshot of the same commit is replaced.
   */
  public Result fetch(String model, String revision, Path hubCache) throws HubFetchException {
    if (model == null || !HubNames.MODEL_ID.matcher(model).matches()) {
      throw new HubFetchException("--model: expected a hub id ORG/NAME, got '" + model + "'");
    }
    if (revision == null || !HubNames.REVISION.matcher(revision).matches()) {
      throw new HubFetchException(
          "--revision: expected a branch, tag or commit, got '" + revision + "'");
    }
    Path repo = hubCache.resolve(HubNames.cacheDirName(model));
    Path incoming;
    try {
      Files.createDirectories(repo);
      incoming = Files.createTempDirectory(repo, ".incoming-");
    } catch (IOException e) {
      throw new HubFetchException("cannot write to " + repo + ": " + describe(e));
    }
    try {
      String commit = null;
      List<String> got = new ArrayList<>();
      long bytes = 0;
      for (Wanted w : FILES) {
        Optional<Downloaded> d = download(model, revision, w, incoming.resolve(w.name()));
        if (d.isEmpty()) {
          continue;
        }
        String c = d.get().commit();
        if (c != null && commit != null && !c.equals(commit)) {
          throw new HubFetchException(
              "revision '"
                  + revision
                  + "' of "
                  + model
                  + " moved during the download (commit "
                  + commit
                  + ", then "
                  + c
                  + "); run again");
        }
        if (c != null) {
          commit = c;
        }
        got.add(w.name());
        bytes += d.get().bytes();
      }
      if (commit == null) {
        // A mirror that does not say the commit: the snapshot is named after the revision.
        commit = revision.replace("/", "--");
      }
      Path snapshot = repo.resolve("snapshots").resolve(commit);
      publish(incoming, snapshot);
      if (!commit.equals(revision)) {
        writeRef(repo.resolve("refs").resolve(revision), commit);
      }
      return new Result(snapshot, commit, List.copyOf(got), bytes);
    } finally {
      deleteTree(incoming);
    }
  }

  private record Downloaded(long bytes, String commit) {}

  private Optional<Downloaded> download(String model, String revision, Wanted w, Path target)
      throws HubFetchException {
    URI uri =
        URI.create(
            settings.endpoint()
                + "/"
                + model
                + "/resolve/"
                + URLEncoder.encode(revision, StandardCharsets.UTF_8)
                + "/"
                + w.name());
    long t0 = System.nanoTime();
    String commit = null;
    for (int hop = 0; ; hop++) {
      HttpResponse<Long> r = send(uri, w, target);
      int status = r.statusCode();
      if (commit == null) {
        commit =
            r.headers()
                .firstValue("x-repo-commit")
                .filter(c -> COMMIT_SHA.matcher(c).matches())
                .orElse(null);
      }
      if (status == 200) {
        check(w, target, uri);
        long n = r.body();
        progress.printf(
            Locale.ROOT,
            "fetch-tokenizer: %s %s in %.1f s%n",
            w.name(),
            size(n),
            (System.nanoTime() - t0) / 1e9);
        progress.flush();
        return Optional.of(new Downloaded(n, commit));
      }
      if (isRedirect(status)) {
        if (hop >= settings.maxRedirects()) {
          throw new HubFetchException(
              "more than "
                  + settings.maxRedirects()
                  + " redirects fetching "
                  + w.name()
                  + " (last "
                  + uri
                  + "); a redirect loop on the hub or mirror");
        }
        uri = redirect(uri, r, w);
        continue;
      }
      String hubSays =
          r.headers()
              .firstValue("x-error-message")
              .map(m -> " (hub says: " + printable(m, 200) + ")")
              .orElse("");
      if (status == 401 || status == 403) {
        throw new HubFetchException(
            "HTTP "
                + status
                + " for "
                + uri
                + ": token missing or not allowed for "
                + model
                + hubSays
                + " (set HF_TOKEN to a token that can read it; a gated model needs its terms"
                + " accepted on the hub; a private or misspelled id answers the same)");
      }
      if (status == 404) {
        if (!w.required()) {
          progress.println(
              "fetch-tokenizer: " + w.name() + " is not in " + model + " (optional, skipped)");
          progress.flush();
          return Optional.empty();
        }
        throw new HubFetchException(
            w.name()
                + " not found at "
                + uri
                + " (HTTP 404)"
                + hubSays
                + ": check the model id and that revision '"
                + revision
                + "' exists and has a "
                + w.name());
      }
      throw new HubFetchException(
          "HTTP " + status + " for " + uri + hubSays + " while fetching " + w.name());
    }
  }

  private HttpResponse<Long> send(URI uri, Wanted w, Path target) throws HubFetchException {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(uri)
            .GET()
            .timeout(settings.fileTimeout())
            .header("User-Agent", "infera-router-fetch-tokenizer");
    if (settings.token() != null && sameOrigin(uri, settings.endpoint())) {
      req.header("Authorization", "Bearer " + settings.token());
    }
    long max = settings.maxFileBytes();
    HttpResponse.BodyHandler<Long> handler =
        info -> {
          if (info.statusCode() != 200) {
            return new BoundedFileSubscriber.Discard();
          }
          long declared = info.headers().firstValueAsLong("content-length").orElse(-1);
          // Refused before a byte is read; the body's own count catches a lying length.
          return new BoundedFileSubscriber(target, declared > max ? -1 : max);
        };
    CompletableFuture<HttpResponse<Long>> f = client.sendAsync(req.build(), handler);
    try {
      return f.get(settings.fileTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw timeout(uri, w);
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw new HubFetchException("interrupted while fetching " + w.name());
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof BoundedFileSubscriber.TooLarge) {
        throw new HubFetchException(
            w.name()
                + " from "
                + uri
                + " is larger than the limit of "
                + size(max)
                + " (--max-file-bytes); not a tokenizer, or raise the limit");
      }
      if (c instanceof HttpTimeoutException) {
        throw timeout(uri, w);
      }
      throw new HubFetchException("cannot fetch " + w.name() + " from " + uri + ": " + describe(c));
    }
  }

  private HubFetchException timeout(URI uri, Wanted w) {
    return new HubFetchException(
        "no complete answer for "
            + w.name()
            + " from "
            + uri
            + " within "
            + settings.fileTimeout().toSeconds()
            + " s (--timeout); is the hub reachable from this pod (egress, proxy, HF_ENDPOINT)?");
  }

  private URI redirect(URI from, HttpResponse<?> r, Wanted w) throws HubFetchException {
    String location = r.headers().firstValue("location").orElse(null);
    if (location == null || location.isBlank()) {
      throw new HubFetchException(
          "HTTP " + r.statusCode() + " without a Location for " + w.name() + " from " + from);
    }
    URI to;
    try {
      to = from.resolve(location.strip());
    } catch (IllegalArgumentException e) {
      throw new HubFetchException(
          "bad redirect for "
              + w.name()
              + " from "
              + from
              + ": '"
              + printable(location, 200)
              + "'");
    }
    String scheme = to.getScheme() == null ? "" : to.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http") || to.getHost() == null) {
      throw new HubFetchException(
          "redirect for " + w.name() + " to a non-http URL: '" + printable(location, 200) + "'");
    }
    if (from.getScheme().equals("https") && scheme.equals("http")) {
      throw new HubFetchException(
          "redirect for " + w.name() + " from https to plain http refused: " + to);
    }
    return to;
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  private static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme())
        && a.getHost().equalsIgnoreCase(b.getHost())
        && port(a) == port(b);
  }

  private static int port(URI u) {
    return u.getPort() != -1 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  /** A file that is not what its name says (an HTML login page, a proxy's error) is refused. */
  private static void check(Wanted w, Path file, URI from) throws HubFetchException {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file)))
              .toString();
    } catch (CharacterCodingException e) {
      throw new HubFetchException(w.name() + " from " + from + " is not UTF-8 text");
    } catch (IOException e) {
      throw new HubFetchException("cannot read back " + file + ": " + describe(e));
    }
    if (w.kind() == Kind.JSON_OBJECT) {
      Object v;
      try {
        v = Json.parse(text);
      } catch (JsonException | RuntimeException e) {
        throw new HubFetchException(
            w.name() + " from " + from + " is not JSON (" + printable(e.getMessage(), 120) + ")");
      }
      if (!(v instanceof Map<?, ?> m)) {
        throw new HubFetchException(w.name() + " from " + from + " is not a JSON object");
      }
      if (w.name().equals("tokenizer.json") && !(m.get("model") instanceof Map)) {
        throw new HubFetchException(
            "tokenizer.json from " + from + " has no \"model\" object: not a tokenizers file");
      }
    } else if (text.indexOf('\0') >= 0) {
      throw new HubFetchException(w.name() + " from " + from + " is not text");
    }
  }

  /** Renames the finished directory into place; a reader sees the old snapshot or the new one. */
  private static void publish(Path incoming, Path snapshot) throws HubFetchException {
    try {
      Files.createDirectories(snapshot.getParent());
      Path old = null;
      if (Files.exists(snapshot)) {
        // Aside in the repository, not in snapshots/: a reader never sees it as a snapshot.
        old = Files.createTempDirectory(snapshot.getParent().getParent(), ".replaced-");
        Files.move(snapshot, old.resolve("s"), StandardCopyOption.ATOMIC_MOVE);
      }
      Files.move(incoming, snapshot, StandardCopyOption.ATOMIC_MOVE);
      if (old != null) {
        deleteTree(old);
      }
    } catch (AtomicMoveNotSupportedException e) {
      throw new HubFetchException("cannot rename into " + snapshot + " atomically: " + describe(e));
    } catch (IOException e) {
      throw new HubFetchException("cannot write " + snapshot + ": " + describe(e));
    }
  }

  private static void writeRef(Path ref, String commit) throws HubFetchException {
    try {
      Files.createDirectories(ref.getParent());
      Path tmp = Files.createTempFile(ref.getParent(), ".ref-", "");
      Files.writeString(tmp, commit, StandardCharsets.UTF_8);
      Files.move(tmp, ref, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new HubFetchException("cannot write " + ref + ": " + describe(e));
    }
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a leftover temporary directory is harmless: readers look only at snapshots/ and refs/
    }
  }

  static String size(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    }
    return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + printable(m, 200));
  }

  /** A server-provided string made safe for a one-line message. */
  static String printable(String s, int max) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    s.codePoints().limit(max).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
    return s.codePointCount(0, s.length()) > max ? b + "…" : b.toString();
  }
}
