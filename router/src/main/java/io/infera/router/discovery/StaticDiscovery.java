package io.infera.router.discovery;

import io.infera.router.config.RouterConfig;
import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.List;

/** {@code static}: the workers listed in the config, all READY (health checks decide the rest). */
public final class StaticDiscovery implements Discovery {

  private final List<WorkerInfo> workers;
  private volatile boolean synced;

  public StaticDiscovery(List<RouterConfig.StaticWorker> configured) {
    List<WorkerInfo> out = new ArrayList<>();
    for (RouterConfig.StaticWorker w : configured) {
      out.add(
          new WorkerInfo(
              WorkerId.of(w.id()),
              w.url(),
              w.role(),
              w.engine(),
              w.dpSize(),
              w.zmq(),
              w.zmqReplay(),
              WorkerInfo.Readiness.READY,
              w.pool()));
    }
    this.workers = List.copyOf(out);
  }

  @Override
  public void start(Listener listener) {
    listener.onWorkers(workers);
    synced = true;
  }

  @Override
  public boolean synced() {
    return synced;
  }

  @Override
  public String name() {
    return "static";
  }

  @Override
  public void close() {}
}
