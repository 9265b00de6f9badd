package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.jse.JsePlatform;

/**
 * deploy/argocd/health-inferadeployment.lua run by LuaJ on InferaDeployment objects, as Argo CD
 * runs it (the object as a Lua table in the global {@code obj}; the script returns {status,
 * message}).
 */
class ArgoCdHealthTest {

  static final String SCRIPT = "deploy/argocd/health-inferadeployment.lua";
  private static final ObjectMapper JSON = new ObjectMapper();

  record Health(String status, String message) {}

  static Health health(String objectJson) throws Exception {
    Globals g = JsePlatform.standardGlobals();
    g.set("obj", lua(JSON.readTree(objectJson)));
    LuaValue result = g.load(InstallFiles.text(SCRIPT), SCRIPT).call();
    return new Health(result.get("status").tojstring(), result.get("message").optjstring(null));
  }

  /** JSON as Argo CD hands it to Lua: objects and arrays as tables, numbers as numbers. */
  private static LuaValue lua(JsonNode n) {
    if (n.isObject()) {
      LuaTable t = new LuaTable();
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        var e = it.next();
        t.set(e.getKey(), lua(e.getValue()));
      }
      return t;
    }
    if (n.isArray()) {
      LuaTable t = new LuaTable();
      for (int i = 0; i < n.size(); i++) {
        t.set(i + 1, lua(n.get(i)));
      }
      return t;
    }
    if (n.isNumber()) {
      return LuaValue.valueOf(n.asDouble());
    }
    if (n.isBoolean()) {
      return LuaValue.valueOf(n.asBoolean());
    }
    if (n.isNull()) {
      return LuaValue.NIL;
    }
    return LuaValue.valueOf(n.asText());
  }

  private static String idep(long generation, String status) {
    return "{\"apiVersion\":\"infera.io/v1alpha1\",\"kind\":\"InferaDeployment\","
        + "\"metadata\":{\"name\":\"demo\",\"namespace\":\"llm\",\"generation\":"
        + generation
        + "},\"spec\":{\"model\":\"m\",\"pools\":[{\"name\":\"w\"}]}"
        + (status == null ? "" : ",\"status\":" + status)
        + "}";
  }

  private static String cond(String type, String status, String reason, String message) {
    return "{\"type\":\""
        + type
        + "\",\"status\":\""
        + status
        + "\",\"reason\":\""
        + reason
        + "\",\"message\":\""
        + message
        + "\",\"observedGeneration\":2}";
  }

  private static String status(long observed, String... conditions) {
    return "{\"observedGeneration\":"
        + observed
        + ",\"phase\":\"x\",\"conditions\":["
        + String.join(",", conditions)
        + "]}";
  }

  @Test
  void noStatusYetIsProgressingWithAMessage() throws Exception {
    assertThat(health(idep(1, null)))
        .isEqualTo(new Health("Progressing", "Waiting for infera-operator to report the status"));
    assertThat(health(idep(1, "{\"conditions\":[]}")).status()).isEqualTo("Progressing");
  }

  @Test
  void statusOfAnOlderGenerationIsProgressing() throws Exception {
    Health h =
        health(
            idep(
                3,
                status(
                    2,
                    cond("Ready", "True", "AllReplicasReady", "2/2 routers"),
                    cond("Degraded", "False", "AsExpected", "ok"))));
    assertThat(h.status()).isEqualTo("Progressing");
    assertThat(h.message()).contains("generation 3");
  }

  @ParameterizedTest(name = "Ready={0} Progressing={1} Degraded={2} -> {3}")
  @CsvSource({
    "True,False,False,Healthy,AllReplicasReady: all ready",
    "False,True,False,Progressing,RolloutInProgress: rolling",
    "False,False,True,Degraded,InvalidSpec: pool p: --block-size is derived",
    "True,False,True,Degraded,InvalidSpec: pool p: --block-size is derived",
    "False,True,True,Degraded,InvalidSpec: pool p: --block-size is derived",
    "False,False,False,Progressing,WaitingForReplicas: none ready",
  })
  void conditionsMapToArgoCdHealth(
      String ready, String progressing, String degraded, String health, String message)
      throws Exception {
    String s =
        status(
            2,
            cond(
                "Ready",
                ready,
                ready.equals("True") ? "AllReplicasReady" : "WaitingForReplicas",
                ready.equals("True") ? "all ready" : "none ready"),
            cond(
                "Progressing",
                progressing,
                progressing.equals("True") ? "RolloutInProgress" : "RolloutComplete",
                "rolling"),
            cond(
                "Degraded",
                degraded,
                degraded.equals("True") ? "InvalidSpec" : "AsExpected",
                "pool p: --block-size is derived"));
    assertThat(health(idep(2, s))).isEqualTo(new Health(health, message));
  }

  @Test
  void healthyButEventsNotFlowingSaysSo() throws Exception {
    Health h =
        health(
            idep(
                2,
                status(
                    2,
                    cond("Ready", "True", "AllReplicasReady", "all ready"),
                    cond("Degraded", "False", "AsExpected", "ok"),
                    cond("EventsFlowing", "False", "NoKvEvents", "no worker published"))));
    assertThat(h.status()).isEqualTo("Healthy");
    assertThat(h.message()).contains("KV events not flowing", "NoKvEvents: no worker published");
  }

  @Test
  void argoCdConfigMapEmbedsTheScriptVerbatim() {
    Map<String, Object> cm = InstallFiles.document("deploy/argocd/argocd-cm.yaml");
    assertThat(InstallFiles.map(cm, "data"))
        .containsEntry(
            "resource.customizations.health.infera.io_InferaDeployment", InstallFiles.text(SCRIPT));
  }

  @Test
  void statusWrittenByTheOperatorIsRead() throws Exception {
    // The condition types and reasons the script looks for are the operator's (Conditions).
    String script = InstallFiles.text(SCRIPT);
    for (String type :
        new String[] {
          io.infera.operator.api.v1alpha1.Conditions.READY,
          io.infera.operator.api.v1alpha1.Conditions.PROGRESSING,
          io.infera.operator.api.v1alpha1.Conditions.DEGRADED,
          io.infera.operator.api.v1alpha1.Conditions.EVENTS_FLOWING
        }) {
      assertThat(script).contains("\"" + type + "\"");
    }
  }
}
