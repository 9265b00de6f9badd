package io.infera.operator.api.v1alpha1;

/** Condition types and reasons of {@link InferaDeploymentStatus} (CamelCase, a contract). */
public final class Conditions {

  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String EVENTS_FLOWING = "EventsFlowing";

  /**
   * Whether the engines' reported cache hits confirm the routers' predicted ones (the router's
   * {@code index_accurate}; its reasons are copied: {@code Accurate}, {@code PhantomHits}, {@code
   * MissedHits}, {@code NotReported}, {@code TooFewSamples}).
   */
  public static final String INDEX_ACCURATE = "IndexAccurate";

  /**
   * Whether every worker renders and tokenizes chats as the routers do (the router's {@code
   * render_parity}; its reasons are copied: {@code Match}, {@code Diverged}, {@code NotProbed},
   * {@code ProbeFailed}, {@code Unsupported}, {@code NoWorkers}, {@code Disabled}).
   */
  public static final String RENDER_PARITY = "RenderParity";

  /**
   * IndexAccurate or RenderParity = Unknown: the router's status lacks the field (an older router).
   */
  public static final String REASON_NOT_MEASURED = "NotMeasured";

  /** Reason of {@code Degraded=True} when the spec cannot be built (CEL, Java checks, args). */
  public static final String REASON_INVALID_SPEC = "InvalidSpec";

  /** Ready=True: every router and worker is ready at the current generation. */
  public static final String REASON_ALL_READY = "AllReplicasReady";

  /** Ready=False: children exist, no router or worker is ready yet. */
  public static final String REASON_WAITING = "WaitingForReplicas";

  /** Progressing=True (and Ready=False): a workload is not rolled out to the current spec. */
  public static final String REASON_ROLLING_OUT = "RolloutInProgress";

  /** Progressing=False: every workload runs the current spec. */
  public static final String REASON_ROLLED_OUT = "RolloutComplete";

  /** Degraded=True: a rollout exceeded its deadline or pods cannot be created. */
  public static final String REASON_ROLLOUT_STALLED = "RolloutStalled";

  /** Degraded=False. */
  public static final String REASON_AS_EXPECTED = "AsExpected";

  /** EventsFlowing=Unknown: no ready router answered {@code /v1/admin/status}. */
  public static final String REASON_ROUTER_STATUS_UNAVAILABLE = "RouterStatusUnavailable";

  /** EventsFlowing=False: the routers discovered no worker. */
  public static final String REASON_NO_WORKERS = "NoWorkers";

  /** EventsFlowing=False: workers are known but none has published a KV event. */
  public static final String REASON_NO_KV_EVENTS = "NoKvEvents";

  /** EventsFlowing=False: a source has a sequence gap the routers have not resynced. */
  public static final String REASON_SOURCES_DEGRADED = "SourcesDegraded";

  /** EventsFlowing=False: KV events arrive later than the limit. */
  public static final String REASON_EVENT_LAG = "EventLag";

  /**
   * EventsFlowing=True: events flow, but some workers' attention backends forced another block size
   * than {@code spec.pageSize}; the routers hash their requests at that size too (the message names
   * them).
   */
  public static final String REASON_BLOCK_SIZE_OVERRIDDEN = "BlockSizeOverridden";

  /** EventsFlowing=True. */
  public static final String REASON_EVENTS_FLOWING = "EventsFlowing";

  private Conditions() {}
}
