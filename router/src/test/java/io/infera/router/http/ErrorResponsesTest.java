package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import io.infera.router.routing.RoutingFailure;
import java.lang.reflect.RecordComponent;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ErrorResponsesTest {

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(
            new RoutingFailure.BadRequest("bad", "prompt"), 400, "invalid_request_error", null),
        Arguments.of(
            new RoutingFailure.TooLarge("big"), 413, "invalid_request_error", "request_too_large"),
        Arguments.of(
            new RoutingFailure.UnknownModel("m"), 404, "invalid_request_error", "model_not_found"),
        Arguments.of(new RoutingFailure.NotFound("p"), 404, "invalid_request_error", "not_found"),
        Arguments.of(
            new RoutingFailure.NoWorker("none"), 503, "service_unavailable", "no_routable_worker"),
        Arguments.of(
            new RoutingFailure.ShuttingDown("bye"), 503, "service_unavailable", "shutting_down"),
        Arguments.of(
            new RoutingFailure.TokenizerUnavailable("no file"),
            503,
            "service_unavailable",
            "tokenizer_unavailable"),
        Arguments.of(
            new RoutingFailure.UpstreamFailed("x"), 502, "upstream_error", "worker_failed"),
        Arguments.of(
            new RoutingFailure.UpstreamTimeout("t"), 504, "upstream_error", "worker_timeout"),
        Arguments.of(
            new RoutingFailure.AnalysisBudgetFull("busy"),
            429,
            "rate_limit_exceeded",
            "analysis_budget_full"),
        Arguments.of(
            new RoutingFailure.ClientGone("left"), 499, "client_closed_request", "client_gone"),
        Arguments.of(new RoutingFailure.Internal("bug"), 500, "server_error", "internal_error"),
        Arguments.of(
            new RoutingFailure.Overloaded("full"), 503, "service_unavailable", "overloaded"),
        Arguments.of(
            new RoutingFailure.Unauthorized("who"), 401, "authentication_error", "invalid_token"),
        Arguments.of(
            new RoutingFailure.HeadersTooLarge("many"),
            431,
            "invalid_request_error",
            "headers_too_large"));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void eachFailureHasItsStatusTypeAndCode(RoutingFailure f, int status, String type, String code)
      throws Exception {
    assertThat(ErrorResponses.status(f)).isEqualTo(status);
    Map<?, ?> err = (Map<?, ?>) ((Map<?, ?>) Json.parse(ErrorResponses.body(f))).get("error");
    assertThat(err.keySet().stream().map(String::valueOf).toList())
        .containsExactly("message", "param", "type", "code");
    assertThat(err.get("message")).isEqualTo(f.message());
    assertThat(err.get("type")).isEqualTo(type);
    assertThat(err.get("code")).isEqualTo(code);
    assertThat(err.get("param"))
        .isEqualTo(f instanceof RoutingFailure.BadRequest b ? b.param() : null);
  }

  @Test
  void everyFailureRecordHasItsOwnKindAndTheTableCoversThemAll() throws Exception {
    Set<RoutingFailure.Kind> seen = EnumSet.noneOf(RoutingFailure.Kind.class);
    for (Class<?> c : RoutingFailure.class.getPermittedSubclasses()) {
      RecordComponent[] parts = c.getRecordComponents();
      Object[] args = new Object[parts.length];
      Class<?>[] types = new Class<?>[parts.length];
      for (int i = 0; i < parts.length; i++) {
        types[i] = parts[i].getType();
        args[i] = "x";
      }
      RoutingFailure f = (RoutingFailure) c.getDeclaredConstructor(types).newInstance(args);
      assertThat(seen.add(f.kind())).as("kind of %s is unique", c.getSimpleName()).isTrue();
    }
    assertThat(seen).isEqualTo(EnumSet.allOf(RoutingFailure.Kind.class));
    assertThat(failures().map(a -> ((RoutingFailure) a.get()[0]).kind()).toList())
        .containsExactlyInAnyOrderElementsOf(seen);
  }

  @ParameterizedTest
  @MethodSource("failures")
  void onTheMessagesEndpointEachFailureIsInAnthropicsShapeWithTheSameStatus(RoutingFailure f)
      throws Exception {
    Map<?, ?> body =
        (Map<?, ?>)
            Json.parse(
                ErrorResponses.body(f, io.infera.router.routing.RequestAnalyzer.Endpoint.MESSAGES));
    assertThat(body.keySet().stream().map(String::valueOf).toList())
        .containsExactly("type", "error");
    assertThat(body.get("type")).isEqualTo("error");
    Map<?, ?> err = (Map<?, ?>) body.get("error");
    assertThat(err.keySet().stream().map(String::valueOf).toList())
        .containsExactly("type", "message");
    assertThat(err.get("message")).isEqualTo(f.message());
    String expected =
        switch (ErrorResponses.status(f)) {
          case 400, 431 -> "invalid_request_error";
          case 401 -> "authentication_error";
          case 404 -> "not_found_error";
          case 413 -> "request_too_large";
          case 429 -> "rate_limit_error";
          case 503 -> "overloaded_error";
          default -> "api_error"; // 499, 500, 502, 504
        };
    assertThat(err.get("type")).isEqualTo(expected);
    // The OpenAI endpoints keep OpenAI's shape.
    assertThat(ErrorResponses.body(f, io.infera.router.routing.RequestAnalyzer.Endpoint.RESPONSES))
        .isEqualTo(ErrorResponses.body(f));
  }
}
