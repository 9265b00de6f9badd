package io.infera.router.cli;

import io.infera.router.kv.BlockHasher;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code infera-router hash}: the router hashes of a token sequence. */
@Command(
    name = "hash",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Print the router's block hashes of a token sequence, one per line as 16-digit hex.",
      "Chained XXH3-64 over u64_le(parent) + u32_le(tokens) per full block; a trailing partial"
          + " block is dropped."
    })
final class HashCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--block-size",
      required = true,
      paramLabel = "N",
      description = "Tokens per block (the fleet's page size).")
  int blockSize;

  @Option(
      names = "--tokens",
      required = true,
      split = ",",
      paramLabel = "T",
      description = "Comma-separated token ids, e.g. 1,2,3,4.")
  List<Long> tokens;

  @Option(
      names = "--lora",
      paramLabel = "NAME",
      description = "LoRA adapter name: the chain starts at xxh3_64(utf8(NAME)).")
  String lora;

  @Option(
      names = "--cache-salt",
      paramLabel = "SALT",
      description = "Tenant cache salt folded into the chain's first parent.")
  String cacheSalt;

  @Override
  public Integer call() {
    if (blockSize < 1) {
      throw new ParameterException(
          spec.commandLine(), "--block-size must be >= 1, got " + blockSize);
    }
    int[] ids = new int[tokens.size()];
    for (int i = 0; i < ids.length; i++) {
      long t = tokens.get(i);
      if (t < 0 || t > 0xffff_ffffL) {
        throw new ParameterException(
            spec.commandLine(), "--tokens: token id " + t + " is outside [0, 4294967295]");
      }
      ids[i] = (int) t;
    }
    long[] hashes =
        new BlockHasher(blockSize).requestHashes(ids, BlockHasher.firstParent(lora, cacheSalt));
    PrintWriter out = spec.commandLine().getOut();
    for (long h : hashes) {
      out.println(BlockHasher.hex(h));
    }
    out.flush();
    return 0;
  }
}
