package io.infera.router.cli;

import io.infera.router.kv.EventBatch;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventDecoder;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code infera-router events}: tools for engine KV-event payloads. */
@Command(
    name = "events",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "Inspect engine KV-event payloads.",
    subcommands = {EventsCommand.Decode.class, CommandLine.HelpCommand.class})
final class EventsCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code infera-router events decode FILE}. */
  @Command(
      name = "decode",
      mixinStandardHelpOptions = true,
      description = {
        "Decode one raw msgpack KV-event batch payload (the last ZMQ frame) and print one JSON"
            + " object per event, one per line.",
        "Hashes are unsigned 16-digit hex; dp_rank is the batch's rank or 0; bigram token pairs"
            + " are flattened.",
        "Skipped events (unknown type, offload placeholder, malformed event) are counted on"
            + " standard error; the rest of the batch is still printed.",
        "Exit codes: 0 decoded, 1 unreadable file, 2 malformed payload."
      })
  static final class Decode implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "Payload file, or - for standard input.")
    String file;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      byte[] payload;
      try {
        payload = "-".equals(file) ? System.in.readAllBytes() : Files.readAllBytes(Path.of(file));
      } catch (NoSuchFileException e) {
        err.println("infera-router events decode: no such file: " + file);
        return 1;
      } catch (IOException e) {
        err.println("infera-router events decode: cannot read " + file + ": " + e.getMessage());
        return 1;
      }
      EventBatch batch;
      try {
        batch = KvEventDecoder.decode(payload);
      } catch (EventDecodeException e) {
        err.println(
            "infera-router events decode: malformed payload ("
                + e.label()
                + "): "
                + e.getMessage());
        return 2;
      }
      PrintWriter out = spec.commandLine().getOut();
      for (KvEvent e : batch.events()) {
        out.println(EventsJson.line(e, batch.rank()));
      }
      EventBatch.Skipped skipped = batch.skipped();
      if (skipped.unknownType() > 0) {
        err.println(
            "infera-router events decode: skipped "
                + skipped.unknownType()
                + " event(s) of unknown type");
      }
      if (skipped.offloadPlaceholder() > 0) {
        err.println(
            "infera-router events decode: skipped "
                + skipped.offloadPlaceholder()
                + " offload placeholder(s) (no tokens, block size 0)");
      }
      if (skipped.malformed() > 0) {
        err.println(
            "infera-router events decode: skipped "
                + skipped.malformed()
                + " malformed event(s), the first: "
                + skipped.firstError());
      }
      out.flush();
      return 0;
    }
  }
}
