package io.infera.sim.bench.peer;

import io.infera.router.json.Json;
import io.infera.sim.sched.CostModel;
import io.infera.sim.sched.EngineConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What NVIDIA Dynamo needs to run beside our engines' numbers: a local model directory (our
 * vendored Qwen3 tokenizer and a small {@code config.json}), and its {@code mocker}'s timing
 * profile computed from our simulator's cost model, so its engines take the time ours do.
 *
 * <p>The mapping: the mocker reads a profile of prefill TTFT by input length and decode ITL by
 * (active KV tokens, context length) and interpolates. Prefill TTFT of {@code n} tokens is our
 * {@link CostModel#stepMs} of that prefill alone, in chunks of the engine's token budget (as our
 * engine runs it); decode ITL at {@code kv} active tokens and context length {@code c} is one
 * decode step of {@code kv / c} sequences over {@code kv} context tokens.
 */
public final class DynamoSetup {

  /** Points of each axis of the profile. */
  static final int RESOLUTION = 24;

  private DynamoSetup() {}

  /** The model directory under the cache, written once. */
  public static Path modelDir() throws PeerUnavailable {
    Path dir = PeerInstall.cacheRoot().resolve("peers").resolve("dynamo-model-qwen3");
    Path tok = dir.resolve("tokenizer.json");
    try {
      Files.createDirectories(dir);
      if (!Files.exists(tok)) {
        String base = "/io/infera/router/tokenize/qwen3/";
        try (InputStream gz = DynamoSetup.class.getResourceAsStream(base + "tokenizer.json.gz");
            InputStream cfg =
                DynamoSetup.class.getResourceAsStream(base + "tokenizer_config.json")) {
          if (gz == null || cfg == null) {
            throw new PeerUnavailable("the vendored Qwen3 tokenizer is not on the class path");
          }
          Files.write(
              dir.resolve("tokenizer_config.json"), cfg.readAllBytes()); // the chat template
          Path part = dir.resolve("tokenizer.json.part");
          try (InputStream in = new java.util.zip.GZIPInputStream(gz)) {
            Files.copy(in, part, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
          Files.move(part, tok, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
      }
      Files.writeString(dir.resolve("config.json"), Json.write(modelConfig()));
    } catch (IOException e) {
      throw new PeerUnavailable("cannot write Dynamo's model directory " + dir + ": " + e);
    }
    return dir;
  }

  /** A Qwen3-0.6B-shaped {@code config.json}: only its shape is read (no weights are loaded). */
  static Map<String, Object> modelConfig() {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("architectures", List.of("Qwen3ForCausalLM"));
    c.put("model_type", "qwen3");
    c.put("hidden_size", 1024);
    c.put("intermediate_size", 3072);
    c.put("num_attention_heads", 16);
    c.put("num_hidden_layers", 28);
    c.put("num_key_value_heads", 8);
    c.put("head_dim", 128);
    c.put("max_position_embeddings", 40960);
    c.put("vocab_size", 151936);
    c.put("torch_dtype", "bfloat16");
    c.put("bos_token_id", 151643);
    c.put("eos_token_id", 151645);
    c.put("tie_word_embeddings", true);
    return c;
  }

  /**
   * The mocker's profile from {@code engine}'s cost model, as the arrays it reads ({@code
   * prefill_isl}, {@code prefill_ttft_ms}, {@code decode_active_kv_tokens}, {@code
   * decode_context_length}, {@code decode_itl[kv][context]}).
   *
   * @param maxTokens the longest prompt and most active KV tokens to cover
   */
  static Map<String, Object> profile(EngineConfig engine, int maxTokens) {
    CostModel cost = engine.cost();
    int budget = engine.maxNumBatchedTokens();
    List<Double> isl = new ArrayList<>();
    List<Double> ttft = new ArrayList<>();
    for (int i = 0; i < RESOLUTION; i++) {
      int n = Math.max(1, (int) Math.round((double) maxTokens * i / (RESOLUTION - 1)));
      double ms = 0;
      for (int done = 0; done < n; done += budget) {
        ms += cost.stepMs(Math.min(budget, n - done), 0, done);
      }
      isl.add((double) n);
      ttft.add(ms);
    }
    List<Double> kvs = new ArrayList<>();
    List<Double> ctxs = new ArrayList<>();
    for (int i = 0; i < RESOLUTION; i++) {
      kvs.add((double) maxTokens * i / (RESOLUTION - 1));
      ctxs.add(1 + (double) (maxTokens - 1) * i / (RESOLUTION - 1));
    }
    List<List<Double>> itl = new ArrayList<>();
    for (double kv : kvs) {
      List<Double> row = new ArrayList<>();
      for (double ctx : ctxs) {
        int seqs = (int) Math.max(1, Math.min(engine.maxNumSeqs(), Math.round(kv / ctx)));
        row.add(cost.stepMs(0, seqs, (long) kv));
      }
      itl.add(row);
    }
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("prefill_isl", isl);
    p.put("prefill_ttft_ms", ttft);
    p.put("decode_active_kv_tokens", kvs);
    p.put("decode_context_length", ctxs);
    p.put("decode_itl", itl);
    return p;
  }

  /**
   * Writes {@link #profile} as the mocker's NPZ file with the virtualenv's numpy.
   *
   * @param bin the Dynamo virtualenv's {@code bin}
   */
  public static Path profileNpz(Path bin, EngineConfig engine, int maxTokens)
      throws PeerUnavailable {
    try {
      Path dir = Files.createTempDirectory("infera-dynamo-profile-");
      Path json = dir.resolve("profile.json");
      Path npz = dir.resolve("profile.npz");
      Files.writeString(json, Json.write(profile(engine, maxTokens)));
      Process p =
          new ProcessBuilder(
                  bin.resolve("python").toString(),
                  "-c",
                  "import json,sys,numpy as np;"
                      + "d=json.load(open(sys.argv[1]));"
                      + "np.savez(sys.argv[2],**{k:np.array(v,dtype=float) for k,v in d.items()})",
                  json.toString(),
                  npz.toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("npz.log").toFile())
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new PeerUnavailable(
            "cannot write the mocker's profile: " + PeerInstall.tail(dir.resolve("npz.log")));
      }
      return npz;
    } catch (IOException e) {
      throw new PeerUnavailable("cannot write the mocker's profile: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PeerUnavailable("interrupted while writing the mocker's profile");
    }
  }
}
