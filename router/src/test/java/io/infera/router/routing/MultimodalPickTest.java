package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.ImageKey;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.ApproxPrefixIndex;
import io.infera.router.policy.ImageAffinity;
import io.infera.router.policy.LoadTracker;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Multimodal picks through the real pick path: affinity, PD halves, explain, the INFO line. */
class MultimodalPickTest {

  private static final int P = 16;
  private final PrefixIndex index = new PrefixIndex(P);
  private final LoadTracker load =
      new LoadTracker(io.infera.router.config.LoadModel.DEFAULTS, () -> 0L); // no drain
  private final Fleet fleet = new Fleet(3, 1_000, 10_000, () -> 0L);
  private final BlockHasher hasher = new BlockHasher(P);
  private final ImageAffinity affinity = new ImageAffinity(64);
  private final RequestRouter router =
      new RequestRouter(
          fleet,
          index,
          load,
          new PolicyConfig(PolicyName.KV_AWARE, 1.0, null, null),
          new ApproxPrefixIndex(60_000, 10_000, () -> 0L),
          new RoutingMetrics(),
          affinity,
          P);
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final ch.qos.logback.classic.Logger logger =
      (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(RequestRouter.class);

  @BeforeEach
  void capture() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logs);
  }

  private static WorkerInfo worker(String id, Role role) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        role,
        "vllm",
        1,
        null,
        null,
        WorkerInfo.Readiness.READY,
        "pool-" + role.wireName());
  }

  private int[] tokens(int blocks) {
    return IntStream.range(0, blocks * P).map(i -> 7_000 + i).toArray();
  }

  private void cache(String worker, int[] tokens) {
    index.apply(
        WorkerId.of(worker),
        KvEventMessage.NO_SEQ,
        new EventBatch(
            0,
            List.of(
                new KvEvent.BlockStored(
                    hasher.requestHashes(tokens, 0),
                    null,
                    tokens,
                    P,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null)),
            0,
            0));
  }

  private static MediaRefs.Media image(String url) {
    return MediaRefs.of(
        Map.of(
            "messages",
            List.of(
                Map.of(
                    "role",
                    "user",
                    "content",
                    List.of(Map.of("type", "image_url", "image_url", Map.of("url", url)))))));
  }

  private RoutePlan mixed(RequestHashes h, MediaRefs.Media m) {
    return ((RequestRouter.Pick.Ok) router.pick(h, m, Set.of(), 0)).plan();
  }

  @Test
  void theTextOverlapIsDroppedAndARepeatImageFollowsItsWorker() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    int[] text = tokens(4);
    cache("b", text); // b caches the text: a text-only request would go there
    RequestHashes h = RequestHashes.of(hasher.requestHashes(text, 0));
    assertThat(mixed(h, MediaRefs.Media.NONE).worker().info().id().value()).isEqualTo("b");

    MediaRefs.Media cat = image("https://x/cat.png");
    RoutePlan first = mixed(h, cat); // a is now the less loaded: the unseen image goes by load
    assertThat(first.worker().info().id().value()).isEqualTo("a");
    assertThat(first.hitBlocks()).isZero();
    assertThat(first.decision().images()).isEqualTo(1);
    assertThat(affinity.size(WorkerId.of("a"))).isEqualTo(1);
    first.booking().release();

    RoutePlan repeat = mixed(h, cat);
    assertThat(repeat.worker().info().id().value()).isEqualTo("a");
    assertThat(repeat.decision().winnerScore().imageHits()).isEqualTo(1);
    repeat.booking().release();

    // Another image, same text: text hits on b are not trusted, a (holding cat) gains nothing.
    RoutePlan dog = mixed(h, image("https://x/dog.png"));
    assertThat(dog.decision().winnerScore().imageHits()).isZero();
    assertThat(dog.decision().scores()).allSatisfy(s -> assertThat(s.hits()).isZero());
  }

  @Test
  void theBookingChargesTheImageEstimateLessTheAffinity() {
    fleet.apply(List.of(worker("a", Role.MIXED)));
    RequestHashes h = RequestHashes.of(hasher.requestHashes(tokens(2), 0));
    MediaRefs.Media cat = image("https://x/cat.png");
    int perImage = (RequestRouter.IMAGE_TOKENS_ESTIMATE + P - 1) / P;
    RoutePlan first = mixed(h, cat);
    assertThat(load.load(WorkerId.of("a")).recentBlocks()).isEqualTo(2.0 + perImage, within());
    first.booking().release();
    RoutePlan again = mixed(h, cat);
    assertThat(again.decision().winnerScore().imageHitBlocks()).isEqualTo(2.0 + perImage);
    again.booking().release();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(0.5);
  }

  @Test
  void underPdThePrefillPickUsesAffinityAndDecodeGoesByLoad() {
    fleet.apply(
        List.of(
            worker("p0", Role.PREFILL),
            worker("p1", Role.PREFILL),
            worker("d0", Role.DECODE),
            worker("d1", Role.DECODE)));
    RequestHashes h = RequestHashes.of(hasher.requestHashes(tokens(3), 0));
    MediaRefs.Media cat = image("https://x/cat.png");
    affinity.booked(WorkerId.of("p1"), cat.keys());
    affinity.booked(WorkerId.of("d1"), cat.keys()); // must not matter for decode
    // make d1 the busier decode worker
    var busy = load.book(WorkerId.of("d1"), new long[] {1, 2, 3}, 3);
    RequestRouter.Pick.Pair pair = (RequestRouter.Pick.Pair) router.pick(h, cat, Set.of(), 0);
    assertThat(pair.prefill().worker().info().id().value()).isEqualTo("p1");
    assertThat(pair.prefill().decision().winnerScore().imageHits()).isEqualTo(1);
    assertThat(pair.decode().worker().info().id().value()).isEqualTo("d0");
    assertThat(pair.decode().decision().images()).isZero();
    assertThat(affinity.size(WorkerId.of("d0"))).isZero(); // decode picks teach nothing
    busy.release();
    assertThat(infoLines())
        .containsExactly(
            "pick policy=kv-aware role=prefill picked=p1 mm_images=1 mm_affinity_hits=1",
            "pick policy=kv-aware role=decode picked=d0 mm_images=1 mm_affinity_hits=0");
  }

  @Test
  void explainShowsAffinityAndBooksNothing() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    MediaRefs.Media cat = image("https://x/cat.png");
    affinity.booked(WorkerId.of("b"), cat.keys());
    RequestHashes h = RequestHashes.of(hasher.requestHashes(tokens(1), 0));
    RoutePlan plan = ((RequestRouter.Pick.Ok) router.explain(h, cat)).plan();
    assertThat(plan.worker().info().id().value()).isEqualTo("b");
    assertThat(plan.booking()).isNull();
    assertThat(affinity.size(WorkerId.of("a"))).isZero();
    assertThat(infoLines()).isEmpty();
  }

  @Test
  @SuppressWarnings("unchecked")
  void theExplainViewShowsTheImagesAndEachWorkersAffinity() {
    fleet.apply(List.of(worker("a", Role.MIXED), worker("b", Role.MIXED)));
    MediaRefs.Media cat = image("https://x/cat.png");
    affinity.booked(WorkerId.of("b"), cat.keys());
    RequestHashes h = RequestHashes.of(hasher.requestHashes(tokens(2), 0));
    RoutePlan plan = ((RequestRouter.Pick.Ok) router.explain(h, cat)).plan();
    RequestAnalyzer.Analyzed a =
        new RequestAnalyzer.Analyzed(
            RequestAnalyzer.Endpoint.CHAT,
            Map.of(),
            "m",
            false,
            null,
            h,
            32,
            0,
            0,
            null,
            null,
            cat,
            Map.of());
    Map<String, Object> view = io.infera.router.admin.AdminViews.explain(a, plan);
    assertThat(view)
        .containsEntry("picked", "b")
        .containsEntry("mm_images", 1)
        .containsEntry("mm_image_keys", 1)
        .containsEntry("mm_affinity_hits", 1);
    List<Map<String, Object>> workers = (List<Map<String, Object>>) view.get("workers");
    assertThat(workers.get(1)).containsEntry("image_hits", 1).containsEntry("cache_hits", 0);
    assertThat(workers.get(0)).containsEntry("image_hits", 0);
  }

  @Test
  void theInfoLineHasTheExactShapeAndTextPicksLogNothingAtInfo() {
    fleet.apply(List.of(worker("a", Role.MIXED)));
    RequestHashes h = RequestHashes.of(hasher.requestHashes(tokens(1), 0));
    mixed(h, MediaRefs.Media.NONE).booking().release();
    assertThat(infoLines()).isEmpty();
    MediaRefs.Media two =
        MediaRefs.of(
            Map.of("images", List.of("https://x/1.png", "https://x/2.png"), "prompt", "describe"));
    mixed(h, two).booking().release();
    mixed(h, two).booking().release();
    assertThat(infoLines())
        .containsExactly(
            "pick policy=kv-aware role=mixed picked=a mm_images=2 mm_affinity_hits=0",
            "pick policy=kv-aware role=mixed picked=a mm_images=2 mm_affinity_hits=2");
    assertThat(ImageKey.of("https://x/1.png")).isEqualTo(two.key(0));
  }

  private List<String> infoLines() {
    return logs.list.stream()
        .filter(e -> e.getLevel() == Level.INFO)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }
}
