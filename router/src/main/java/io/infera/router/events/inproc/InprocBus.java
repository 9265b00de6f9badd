package io.infera.router.events.inproc;

import io.infera.router.events.Delivery;
import io.infera.router.events.EventSink;
import io.infera.router.kv.WorkerId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An in-JVM KV-event channel: simulated engines publish ZMQ-shaped frames, routers in the same JVM
 * subscribe. Named buses keep tests and demo instances apart.
 */
public final class InprocBus {

  private static final Map<String, InprocBus> BUSES = new ConcurrentHashMap<>();

  private final String name;
  private final List<EventSink> sinks = new CopyOnWriteArrayList<>();

  private InprocBus(String name) {
    this.name = name;
  }

  /** The bus of that name (created on first use). */
  public static InprocBus named(String name) {
    return BUSES.computeIfAbsent(name, InprocBus::new);
  }

  public String name() {
    return name;
  }

  /** Delivers one message to every subscriber. */
  public void publish(WorkerId worker, List<byte[]> frames) {
    for (EventSink s : sinks) {
      s.accept(new Delivery.Live(worker, frames));
    }
  }

  void subscribe(EventSink sink) {
    sinks.add(sink);
  }

  void unsubscribe(EventSink sink) {
    sinks.remove(sink);
  }

  /** Subscribers right now (tests). */
  public int subscribers() {
    return sinks.size();
  }
}
