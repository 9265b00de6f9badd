package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stream and bucket creation against a real nats-server: idempotent, limits as designed. */
class JetStreamSetupIT {

  @TempDir Path dir;

  @Test
  void createsTheStreamAndBucketOnceAndLeavesThemAlone() throws Exception {
    try (NatsServer server = NatsServer.start(dir.resolve("nats"));
        Connection nc = Nats.connect(server.url())) {
      JetStreamSetup.Limits limits = new JetStreamSetup.Limits(Duration.ofMinutes(5), 1 << 20, 50);
      assertThat(JetStreamSetup.ensureStream(nc, "S", "infera.kv.events", limits)).isTrue();
      assertThat(JetStreamSetup.ensureStream(nc, "S", "infera.kv.events", limits)).isFalse();
      StreamConfiguration c = nc.jetStreamManagement().getStreamInfo("S").getConfiguration();
      assertThat(c.getSubjects()).containsExactly("infera.kv.events.>");
      assertThat(c.getStorageType()).isEqualTo(StorageType.File);
      assertThat(c.getDiscardPolicy()).isEqualTo(DiscardPolicy.Old);
      assertThat(c.getMaxMsgs()).isEqualTo(50);
      assertThat(c.getMaxBytes()).isEqualTo(1 << 20);
      assertThat(c.getMaxAge()).isEqualTo(Duration.ofMinutes(5));
      assertThat(JetStreamSetup.ensureBucket(nc, "snaps")).isTrue();
      assertThat(JetStreamSetup.ensureBucket(nc, "snaps")).isFalse();
      nc.keyValue("snaps").put("k.0", new byte[] {1});
      assertThat(nc.keyValue("snaps").get("k.0").getValue()).containsExactly(1);
    }
  }
}
