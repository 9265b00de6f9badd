package io.infera.operator.reconciler;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes core/v1 Events. The event's name is derived from (uid, generation, reason, message), so
 * recording the same warning twice for one generation is one event (the second create is a
 * conflict, ignored).
 */
public final class KubernetesEvents implements EventRecorder {

  /** The event source component. */
  public static final String COMPONENT = "infera-operator";

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEvents.class);
  private static final int MAX_MESSAGE = 1024;

  private final KubernetesClient client;
  private final Clock clock;
  private final String instance;

  public KubernetesEvents(KubernetesClient client, Clock clock, String instance) {
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.instance = Objects.requireNonNull(instance, "instance");
  }

  @Override
  public void warning(InferaDeployment about, String reason, String message) {
    Event e = event(about, "Warning", reason, message, clock.instant(), instance);
    try {
      client.v1().events().inNamespace(e.getMetadata().getNamespace()).resource(e).create();
    } catch (KubernetesClientException ex) {
      if (ex.getCode() == 409) {
        return; // already recorded for this generation
      }
      LOG.warn(
          "event=record-failed idep={}/{} reason={} code={} error={}",
          about.getMetadata().getNamespace(),
          about.getMetadata().getName(),
          reason,
          ex.getCode(),
          ex.getMessage());
    }
  }

  /** The Event object (pure; visible for tests). */
  static Event event(
      InferaDeployment about,
      String type,
      String reason,
      String message,
      Instant now,
      String instance) {
    String ns = about.getMetadata().getNamespace();
    String name = about.getMetadata().getName();
    String text = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message;
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    return new EventBuilder()
        .withNewMetadata()
        .withName(name + "." + digest(about, reason, text))
        .withNamespace(ns)
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(InferaDeployment.API_VERSION)
        .withKind(InferaDeployment.KIND)
        .withName(name)
        .withNamespace(ns)
        .withUid(about.getMetadata().getUid())
        .withResourceVersion(about.getMetadata().getResourceVersion())
        .endInvolvedObject()
        .withType(type)
        .withReason(reason)
        .withMessage(text)
        .withCount(1)
        .withFirstTimestamp(time)
        .withLastTimestamp(time)
        .withEventTime(new MicroTime(now.truncatedTo(ChronoUnit.MICROS).toString()))
        .withAction("Reconcile")
        .withNewSource()
        .withComponent(COMPONENT)
        .endSource()
        .withReportingComponent(COMPONENT)
        .withReportingInstance(instance)
        .build();
  }

  private static String digest(InferaDeployment about, String reason, String message) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      String key =
          about.getMetadata().getUid()
              + "\n"
              + about.getMetadata().getGeneration()
              + "\n"
              + reason
              + "\n"
              + message;
      byte[] h = md.digest(key.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
