package io.infera.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpacked image: the root file system the containers' overlays sit on (never written) and the
 * config a runtime reads (entrypoint, cmd, env, user, working directory).
 */
record Image(
    String name,
    Path rootfs,
    List<String> entrypoint,
    List<String> cmd,
    List<String> env,
    String user,
    String workingDir) {

  /** Unpacks an OCI tarball with {@code build/run-image.py unpack}. */
  static Image unpack(String name, Path tar, Path dir, Path runner) {
    if (!Files.isRegularFile(tar)) {
      throw new IllegalStateException(
          "image tarball " + tar + " is missing: the images profile builds it in 'package'");
    }
    Cmd.run(Pod.python(), runner.toString(), "unpack", tar.toString(), dir.toString());
    try {
      JsonNode c = new ObjectMapper().readTree(dir.resolve("config.json").toFile());
      return new Image(
          name,
          dir.resolve("rootfs"),
          strings(c.get("Entrypoint")),
          strings(c.get("Cmd")),
          strings(c.get("Env")),
          c.path("User").asText(""),
          c.path("WorkingDir").asText(""));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + dir.resolve("config.json"), e);
    }
  }

  /**
   * Stands in for {@code nats:2.10-alpine} (no registry here): Debian's {@code nats-server} and the
   * libraries it links, where the image has it, run as the image runs it (its entrypoint hands
   * arguments starting with '-' to {@code nats-server}).
   */
  static Image natsStandIn(Path natsServer, Path dir) {
    Path root = dir.resolve("rootfs");
    try {
      Files.createDirectories(root.resolve("usr/local/bin"));
      Files.copy(
          natsServer,
          root.resolve("usr/local/bin/nats-server"),
          StandardCopyOption.COPY_ATTRIBUTES);
      for (String line : Cmd.run("ldd", natsServer.toString()).split("\n")) {
        String lib = library(line.strip());
        if (lib != null) {
          Path to = root.resolve(lib.substring(1));
          Files.createDirectories(to.getParent());
          Files.copy(Path.of(lib), to, StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Files.createDirectories(root.resolve("tmp"));
      Cmd.run("chmod", "1777", root.resolve("tmp").toString());
      Cmd.run("chmod", "-R", "a+rX", root.toString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot build the nats stand-in in " + root, e);
    }
    return new Image(
        "nats (Debian's nats-server)",
        root,
        List.of("nats-server"),
        List.of(),
        List.of("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
        "",
        "/");
  }

  /** The library path of one {@code ldd} line, or null ({@code linux-vdso}, blank lines). */
  static String library(String line) {
    int arrow = line.indexOf("=> /");
    String path;
    if (arrow >= 0) {
      path = line.substring(arrow + 3);
    } else if (line.startsWith("/")) {
      path = line;
    } else {
      return null;
    }
    int paren = path.indexOf(" (");
    return paren >= 0 ? path.substring(0, paren) : path;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null && array.isArray()) {
      array.forEach(n -> out.add(n.asText()));
    }
    return List.copyOf(out);
  }
}
