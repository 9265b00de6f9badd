package io.infera.router.relay;

import io.infera.router.nats.NatsHeaders;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * An in-memory JetStream with the semantics the relay relies on: {@code Nats-Msg-Id} deduplication
 * (a duplicate is acknowledged with the original's sequence, before any expectation is checked),
 * expected last subject sequence, per-subject last message, a KV map. It can go down, and can hold
 * asynchronous publishes as if they sat in the client's outgoing queue, then store them
 * (acknowledged or not) or lose them.
 */
final class FakeStreamClient implements StreamClient {

  record Msg(long seq, String subject, Map<String, String> headers, byte[] payload, String id) {
    boolean marker() {
      return headers.containsKey(NatsHeaders.RESYNC);
    }
  }

  private record Pending(Outbound message, CompletableFuture<Ack> future) {}

  private final List<Msg> stream = new ArrayList<>();
  private final Map<String, Long> dedup = new HashMap<>();
  private final Map<String, byte[]> kv = new HashMap<>();
  private final List<Pending> pending = new ArrayList<>();
  private long nextSeq = 1;
  private long kvRevision;
  private boolean up = true;
  private boolean hold;
  private long reconnects;
  int syncPublishes;
  int kvPuts;

  // ---------------------------------------------------------------- test controls

  /** The stream is deleted and created again: empty, sequences from 1, no dedupe history. */
  synchronized void recreateStream() {
    stream.clear();
    dedup.clear();
    nextSeq = 1;
  }

  synchronized void down() {
    up = false;
  }

  synchronized void up() {
    if (!up) {
      reconnects++;
    }
    up = true;
  }

  /** Asynchronous publishes stay queued (not stored, not acknowledged) until told otherwise. */
  synchronized void hold(boolean hold) {
    this.hold = hold;
  }

  /** Stores the queued publishes in order and acknowledges them. */
  synchronized void deliverHeld() {
    for (Pending p : takeHeld()) {
      p.future().complete(store(p.message()));
    }
  }

  /** Stores the queued publishes in order; their acknowledgements are lost. */
  synchronized void storeHeldLosingAcks() {
    for (Pending p : takeHeld()) {
      store(p.message());
    }
  }

  /** Stores only the queued publishes at these positions (the others are lost); no acks. */
  synchronized void storeHeldAt(int... positions) {
    List<Pending> held = takeHeld();
    for (int i : positions) {
      store(held.get(i).message());
    }
  }

  synchronized int heldCount() {
    return pending.size();
  }

  synchronized List<Msg> messages() {
    return List.copyOf(stream);
  }

  synchronized List<Msg> messages(String subject) {
    return stream.stream().filter(m -> m.subject().equals(subject)).toList();
  }

  synchronized byte[] kv(String key) {
    return kv.get(key);
  }

  synchronized void putKv(String key, byte[] value) {
    kv.put(key, value);
    kvRevision++;
  }

  private List<Pending> takeHeld() {
    List<Pending> held = new ArrayList<>(pending);
    pending.clear();
    return held;
  }

  private Ack store(Outbound m) {
    Long dup = dedup.get(m.messageId());
    if (dup != null) {
      return new Ack(dup, true);
    }
    long seq = nextSeq++;
    stream.add(new Msg(seq, m.subject(), Map.copyOf(m.headers()), m.payload(), m.messageId()));
    dedup.put(m.messageId(), seq);
    return new Ack(seq, false);
  }

  private long lastSeq(String subject) {
    for (int i = stream.size() - 1; i >= 0; i--) {
      if (stream.get(i).subject().equals(subject)) {
        return stream.get(i).seq();
      }
    }
    return 0;
  }

  // ---------------------------------------------------------------- StreamClient

  @Override
  public boolean connect(BooleanSupplier stillWanted) {
    return true;
  }

  @Override
  public void setup() {}

  @Override
  public synchronized boolean connected() {
    return up;
  }

  @Override
  public synchronized long reconnects() {
    return reconnects;
  }

  @Override
  public synchronized CompletableFuture<Ack> publishAsync(Outbound message) {
    if (!up) {
      return CompletableFuture.failedFuture(new IOException("disconnected"));
    }
    CompletableFuture<Ack> f = new CompletableFuture<>();
    if (hold) {
      pending.add(new Pending(message, f));
    } else {
      f.complete(store(message));
    }
    return f;
  }

  @Override
  public synchronized Ack publish(Outbound message, long expectedLastSubjectSeq) throws Exception {
    syncPublishes++;
    if (!up) {
      throw new IOException("disconnected");
    }
    // FIFO behind whatever the client still has queued.
    for (Pending p : takeHeld()) {
      p.future().complete(store(p.message()));
    }
    Long dup = dedup.get(message.messageId());
    if (dup != null) {
      return new Ack(dup, true);
    }
    if (expectedLastSubjectSeq >= 0 && lastSeq(message.subject()) != expectedLastSubjectSeq) {
      throw new WrongLastSequenceException("wrong last sequence: " + lastSeq(message.subject()));
    }
    return store(message);
  }

  @Override
  public synchronized Optional<Stored> lastMessage(String subject) throws IOException {
    if (!up) {
      throw new IOException("disconnected");
    }
    for (int i = stream.size() - 1; i >= 0; i--) {
      Msg m = stream.get(i);
      if (m.subject().equals(subject)) {
        return Optional.of(new Stored(m.seq(), m.headers(), m.payload()));
      }
    }
    return Optional.empty();
  }

  @Override
  public void read(String subject, long from, long to, Consumer<Stored> each) throws IOException {
    List<Msg> copy;
    synchronized (this) {
      if (!up) {
        throw new IOException("disconnected");
      }
      copy = List.copyOf(stream);
    }
    for (Msg m : copy) {
      if (m.subject().equals(subject) && m.seq() >= from && m.seq() <= to) {
        each.accept(new Stored(m.seq(), m.headers(), m.payload()));
      }
    }
  }

  @Override
  public synchronized Optional<byte[]> getSnapshot(String key) throws IOException {
    if (!up) {
      throw new IOException("disconnected");
    }
    return Optional.ofNullable(kv.get(key));
  }

  @Override
  public synchronized long putSnapshot(String key, byte[] value) throws IOException {
    if (!up) {
      throw new IOException("disconnected");
    }
    kvPuts++;
    kv.put(key, value);
    return ++kvRevision;
  }

  @Override
  public void close() {}
}
