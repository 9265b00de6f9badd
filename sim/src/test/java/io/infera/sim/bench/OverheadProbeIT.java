package io.infera.sim.bench;

import io.infera.router.config.PolicyName;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.*;
import org.junit.jupiter.api.Test;

class OverheadProbeIT {
  @Test
  void probe() throws Exception {
    FleetSpec fleet = FleetSpec.of(2, 2048);
    try (LiveStack stack =
        LiveStack.start(fleet, 1.0, 1, Arm.policy(PolicyName.KV_AWARE).policyConfig(fleet))) {
      HttpClient http = HttpClient.newHttpClient();
      Random r = new Random(1);
      for (int round = 0; round < 30; round++) {
        StringBuilder sys = new StringBuilder();
        for (int i = 0; i < 1500; i++) sys.append("word").append(r.nextInt(100000)).append(' ');
        String body =
            io.infera.router.json.Json.write(
                Map.of(
                    "model",
                    "sim",
                    "stream",
                    true,
                    "max_tokens",
                    4,
                    "messages",
                    List.of(
                        Map.of("role", "system", "content", sys.toString()),
                        Map.of("role", "user", "content", "hi " + round))));
        double viaRouter = ttft(http, stack.frontUrl(), body);
        double direct =
            ttft(
                http,
                stack.engines().get(round % 2).url(),
                body.replace("hi " + round, "yo " + round));
        System.out.printf("round %d router %.1f ms direct %.1f ms%n", round, viaRouter, direct);
      }
    }
  }

  static double ttft(HttpClient http, String url, String body) throws Exception {
    long t0 = System.nanoTime();
    HttpResponse<java.io.InputStream> resp =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "/v1/chat/completions"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    double first = -1;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body()))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (first < 0 && line.startsWith("data: ") && line.contains("\"content\""))
          first = (System.nanoTime() - t0) / 1e6;
      }
    }
    return first;
  }
}
