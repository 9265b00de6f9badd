package io.infera.router.nats;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadMessage.Bye;
import io.infera.router.nats.SharedLoadMessage.Entry;
import io.infera.router.nats.SharedLoadMessage.Heartbeat;
import io.infera.router.nats.SharedLoadMessage.Update;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random valid load messages for the property and fuzz tests. */
final class SharedLoadMessages {

  private static final String[] IDS = {
    "w", "vllm-0", "sglang-decode-7", "pod-é-ü", "工作者-3", "x".repeat(200)
  };

  private SharedLoadMessages() {}

  static SharedLoadMessage random(Random r) {
    long replica = r.nextLong();
    return switch (r.nextInt(5)) {
      case 0 -> new Bye(replica);
      case 1, 2 -> new Heartbeat(replica, Math.abs(r.nextLong() >> 1), entries(r, false, 0));
      default -> new Update(replica, entries(r, true, 1));
    };
  }

  private static List<Entry> entries(Random r, boolean picks, int min) {
    int n = min + r.nextInt(6);
    List<Entry> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      boolean pick = picks && r.nextBoolean();
      out.add(
          new Entry(
              WorkerId.of(IDS[r.nextInt(IDS.length)] + (r.nextBoolean() ? "" : i)),
              r.nextInt(3) == 0 ? Long.MAX_VALUE : r.nextInt(1_000_000),
              r.nextInt(4) == 0 ? 0 : r.nextInt(100_000),
              r.nextInt(4) == 0 ? 0 : r.nextInt(500),
              pick,
              pick ? (r.nextBoolean() ? r.nextInt(64) : r.nextDouble() * 1000) : 0));
    }
    return out;
  }
}
