package io.infera.router.nats;

import io.infera.router.kv.WorkerId;
import java.util.List;

/**
 * What router replicas tell each other on the load subject (docs/contracts.md, "NATS event plane"):
 * in-flight totals per worker, picks, heartbeats and goodbyes. {@code
 * io.infera.router.events.nats.SharedLoad} sends and applies them.
 *
 * <p>Wire form, big-endian: {@code 'I' 'L'}, version {@code u8} (= {@value #VERSION}), kind {@code
 * u8} (1 update, 2 heartbeat, 3 bye; 4 {@link Weights} and 5 {@link Bindings} are described there),
 * sender replica {@code i64}; a heartbeat then has its seq {@code i64}; updates and heartbeats then
 * have an entry count {@code u16} and the entries: flags {@code u8} (bit 0: pick; other bits 0),
 * worker id length {@code u16} and UTF-8 bytes, seq {@code i64}, active blocks {@code i64}, in
 * flight {@code i32}, and for a pick its charge ({@code f64}). Nothing may follow. Codec: {@link
 * SharedLoadCodec}.
 */
public sealed interface SharedLoadMessage {

  int VERSION = 1;

  /** Most entries in one message (a heartbeat lists every worker the sender has load on). */
  int MAX_ENTRIES = 8192;

  /** Longest worker id, in UTF-8 bytes. */
  int MAX_WORKER_BYTES = 1024;

  /** Largest charge accepted (a pick's missed blocks). */
  double MAX_CHARGE = 1e9;

  /** The sending replica's id. */
  long replica();

  /**
   * The sender's totals on one worker.
   *
   * @param seq orders the sender's changes: per worker, higher is newer (≥ 0)
   * @param activeBlocks distinct blocks the sender has in flight on the worker (≥ 0)
   * @param inFlight requests the sender has in flight on the worker (≥ 0)
   * @param pick whether this entry is a pick, to be charged {@code charge}
   * @param charge the pick's recent charge (finite, 0 ≤ charge ≤ {@value #MAX_CHARGE}; 0 unless
   *     {@code pick})
   */
  record Entry(
      WorkerId worker, long seq, long activeBlocks, int inFlight, boolean pick, double charge) {
    public Entry {
      if (seq < 0 || activeBlocks < 0 || inFlight < 0) {
        throw new IllegalArgumentException("seq, activeBlocks and inFlight must be >= 0");
      }
      if (!(charge >= 0 && charge <= MAX_CHARGE) || (!pick && charge != 0)) {
        throw new IllegalArgumentException("charge must be in [0, 1e9], and 0 unless a pick");
      }
    }
  }

  /** Changes of the sender's load (bookings and releases), in the order they were sent. */
  record Update(long replica, List<Entry> entries) implements SharedLoadMessage {
    public Update {
      entries = List.copyOf(entries);
      if (entries.isEmpty() || entries.size() > MAX_ENTRIES) {
        throw new IllegalArgumentException("an update has 1 to " + MAX_ENTRIES + " entries");
      }
    }
  }

  /**
   * The sender's full in-flight totals: every worker it has load on (no picks); any worker not
   * listed whose last known seq is at most {@code seq} has none.
   */
  record Heartbeat(long replica, long seq, List<Entry> entries) implements SharedLoadMessage {
    public Heartbeat {
      entries = List.copyOf(entries);
      if (seq < 0 || entries.size() > MAX_ENTRIES) {
        throw new IllegalArgumentException(
            "a heartbeat has seq >= 0 and at most " + MAX_ENTRIES + " entries");
      }
      if (entries.stream().anyMatch(Entry::pick)) {
        throw new IllegalArgumentException("a heartbeat carries no picks");
      }
    }
  }

  /** The sender is leaving: forget its load now rather than at expiry. */
  record Bye(long replica) implements SharedLoadMessage {}

  /** Most pool estimates in one {@link Weights} message. */
  int MAX_WEIGHT_ENTRIES = 256;

  /** Longest pool name in a {@link Weights} message, in UTF-8 bytes. */
  int MAX_POOL_BYTES = 253;

  /** Largest weight estimate accepted. */
  double MAX_WEIGHT = 1e6;

  /**
   * One pool and role's tuned overlap weight and the evidence behind it.
   *
   * @param pool the pool name (1 to {@value #MAX_POOL_BYTES} UTF-8 bytes, not blank)
   * @param role 0 mixed, 1 prefill, 2 decode
   * @param weight finite, 0 &lt; weight ≤ {@value #MAX_WEIGHT}
   * @param samples first-token reports behind the estimate (≥ 0)
   */
  record WeightEntry(String pool, int role, double weight, long samples) {
    public WeightEntry {
      if (pool == null || pool.isBlank()) {
        throw new IllegalArgumentException("pool must be set");
      }
      if (role < 0 || role > 2) {
        throw new IllegalArgumentException("role must be 0, 1 or 2");
      }
      if (!(weight > 0 && weight <= MAX_WEIGHT) || samples < 0) {
        throw new IllegalArgumentException("weight must be in (0, 1e6] and samples >= 0");
      }
    }
  }

  /**
   * The sender's overlap-weight estimates (docs/routing.md, "Self-tuning overlap weight"), sent
   * with its heartbeats when it tunes; kind 4 on the wire, after the replica: an entry count {@code
   * u16} and per entry the pool name's length {@code u16} and UTF-8 bytes, role {@code u8}, weight
   * {@code f64}, samples {@code i64}.
   */
  record Weights(long replica, List<WeightEntry> estimates) implements SharedLoadMessage {
    public Weights {
      estimates = List.copyOf(estimates);
      if (estimates.isEmpty() || estimates.size() > MAX_WEIGHT_ENTRIES) {
        throw new IllegalArgumentException(
            "a weights message has 1 to " + MAX_WEIGHT_ENTRIES + " estimates");
      }
    }
  }

  /** Most bindings in one {@link Bindings} message. */
  int MAX_BINDING_ENTRIES = 512;

  /** Highest data-parallel rank a binding may name. */
  int MAX_BINDING_RANK = 65_535;

  /** Highest binding version accepted. */
  long MAX_BINDING_VERSION = 1L << 40;

  /**
   * One session's binding (docs/routing.md, "Session affinity"): the session key's hash, the
   * prefill-side worker and the decode worker (either may be absent, not both) with their ranks.
   *
   * @param session the XXH3-64 of the session key (the key text never crosses the wire)
   * @param first the prefill-side worker, or null
   * @param firstRank -1 (none) to {@value #MAX_BINDING_RANK}; -1 when {@code first} is null
   * @param decode the decode worker, or null
   * @param decodeRank as {@code firstRank}, for {@code decode}
   * @param version 1 to {@value #MAX_BINDING_VERSION}
   * @param origin the replica that made this version
   */
  record BindingEntry(
      long session,
      WorkerId first,
      int firstRank,
      WorkerId decode,
      int decodeRank,
      long version,
      long origin) {
    public BindingEntry {
      if (first == null && decode == null) {
        throw new IllegalArgumentException("a binding names a first or a decode worker");
      }
      if (firstRank < -1
          || firstRank > MAX_BINDING_RANK
          || (first == null && firstRank != -1)
          || decodeRank < -1
          || decodeRank > MAX_BINDING_RANK
          || (decode == null && decodeRank != -1)) {
        throw new IllegalArgumentException("ranks must be in [-1, 65535], -1 without a worker");
      }
      if (version < 1 || version > MAX_BINDING_VERSION) {
        throw new IllegalArgumentException("version must be in [1, 2^40]");
      }
    }
  }

  /**
   * Session bindings the sender made, replaced or still uses; kind 5 on the wire, after the
   * replica: an entry count {@code u16} and per entry the session {@code i64}, flags {@code u8}
   * (bit 0: first worker present, bit 1: decode worker present, other bits 0), for each present
   * worker its id's length {@code u16}, UTF-8 bytes and rank {@code i32}, then version {@code i64}
   * and origin {@code i64}.
   */
  record Bindings(long replica, List<BindingEntry> entries) implements SharedLoadMessage {
    public Bindings {
      entries = List.copyOf(entries);
      if (entries.isEmpty() || entries.size() > MAX_BINDING_ENTRIES) {
        throw new IllegalArgumentException(
            "a bindings message has 1 to " + MAX_BINDING_ENTRIES + " entries");
      }
    }
  }
}
