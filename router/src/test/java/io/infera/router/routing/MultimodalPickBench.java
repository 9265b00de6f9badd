package io.infera.router.routing;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ImageAffinity;
import io.infera.router.policy.LoadTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The multimodal request path's own costs:
 *
 * <ul>
 *   <li>{@code detectUrlImages}: {@link MediaRefs#of} on a parsed chat with 4 image URLs;
 *   <li>{@code detectDataUri1MiB}: the same with one 1 MiB {@code data:} URI (the key hashes the
 *       whole URI, from its characters);
 *   <li>{@code pickExcludingHashing}: a booked multimodal pick on 64 workers whose affinity LRUs
 *       are full (1,024 keys each), 4 images, a 20-block text; released after (its INFO line is
 *       turned off: the console is not the pick).
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MultimodalPickBench {

  Map<String, Object> urlBody;
  Map<String, Object> dataBody;
  RequestRouter router;
  RequestHashes hashes;
  MediaRefs.Media media;

  private static Map<String, Object> chat(List<String> refs) {
    List<Object> content = new ArrayList<>();
    content.add(Map.of("type", "text", "text", "What differs between these pictures?"));
    for (String r : refs) {
      content.add(Map.of("type", "image_url", "image_url", Map.of("url", r)));
    }
    return Map.of("messages", List.of(Map.of("role", "user", "content", content)));
  }

  @Setup
  public void setup() {
    // The INFO line per multimodal pick would measure the console, not the pick.
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(RequestRouter.class))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    urlBody =
        chat(
            List.of(
                "https://images.example/a/0001.jpg",
                "https://images.example/a/0002.jpg",
                "https://images.example/a/0003.jpg",
                "https://images.example/a/0004.jpg"));
    dataBody = chat(List.of("data:image/png;base64," + "QUJD".repeat(1 << 18)));
    Fleet fleet = new Fleet(3, 1000, 30_000, System::currentTimeMillis);
    List<WorkerInfo> infos = new ArrayList<>();
    ImageAffinity affinity = new ImageAffinity(ImageAffinity.DEFAULT_ENTRIES);
    for (int w = 0; w < 64; w++) {
      WorkerId id = WorkerId.of("w" + w);
      infos.add(
          new WorkerInfo(
              id,
              "http://127.0.0.1:1",
              Role.MIXED,
              "vllm",
              1,
              null,
              null,
              WorkerInfo.Readiness.READY,
              "bench"));
      for (long k = 0; k < ImageAffinity.DEFAULT_ENTRIES; k++) {
        affinity.booked(id, new long[] {k * 64 + w});
      }
    }
    fleet.apply(infos);
    router =
        new RequestRouter(
            fleet,
            new PrefixIndex(16),
            new LoadTracker(),
            PolicyConfig.defaults(),
            null,
            null,
            affinity,
            16);
    int[] tokens = new int[20 * 16];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = 1000 + i;
    }
    hashes = RequestHashes.of(new BlockHasher(16).requestHashes(tokens, 0));
    media = MediaRefs.of(urlBody);
  }

  @Benchmark
  public MediaRefs.Media detectUrlImages() {
    return MediaRefs.of(urlBody);
  }

  @Benchmark
  public MediaRefs.Media detectDataUri1MiB() {
    return MediaRefs.of(dataBody);
  }

  @Benchmark
  public RoutePlan pickExcludingHashing() {
    RoutePlan plan = ((RequestRouter.Pick.Ok) router.pick(hashes, media, Set.of(), 0)).plan();
    plan.booking().release();
    return plan;
  }
}
