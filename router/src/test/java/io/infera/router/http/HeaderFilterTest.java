package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.http.HeaderFilter.From;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class HeaderFilterTest {

  private static List<Map.Entry<String, String>> headers(String... kv) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (int i = 0; i + 1 < kv.length; i += 2) {
      out.add(new SimpleEntry<>(kv[i], kv[i + 1]));
    }
    return out;
  }

  private static List<Map.Entry<String, String>> copy(
      List<Map.Entry<String, String>> in, From from) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    HeaderFilter.copy(in, from, (k, v) -> out.add(new SimpleEntry<>(k, v)));
    return out;
  }

  @ParameterizedTest
  @EnumSource(From.class)
  void hopByHopAndConnectionListedHeadersStayBehindEitherWay(From from) {
    var in =
        headers(
            "Content-Type", "application/json",
            "Connection", "keep-alive, X-Secret , x-other",
            "connection", "Upgrade",
            "X-Secret", "1",
            "X-OTHER", "2",
            "Keep-Alive", "timeout=5",
            "Transfer-Encoding", "chunked",
            "TE", "trailers",
            "Trailer", "x",
            "Upgrade", "h2c",
            "Proxy-Authorization", "Basic x",
            "Proxy-Connection", "keep-alive",
            "Host", "evil",
            "Content-Length", "9",
            "Authorization", "Bearer kept",
            "X-Kept", "yes");
    assertThat(copy(in, from).stream().map(Map.Entry::getKey))
        .containsExactly("Content-Type", "Authorization", "X-Kept");
  }

  @Test
  void aClientCannotSetTheRankOrTheRoutersOwnHeaders() {
    var in =
        headers(
            "X-Data-Parallel-Rank", "7",
            "x-data-parallel-rank", "8",
            "X-Infera-Worker", "forged",
            "x-infera-cache-hit-blocks", "99",
            "x-request-id", "client-id",
            "X-Kept", "yes");
    List<Map.Entry<String, String>> out = new ArrayList<>();
    int dropped = HeaderFilter.copy(in, From.CLIENT, (k, v) -> out.add(new SimpleEntry<>(k, v)));
    assertThat(dropped).isEqualTo(4);
    assertThat(out.stream().map(Map.Entry::getKey)).containsExactly("x-request-id", "X-Kept");
  }

  @Test
  void anEngineKeepsItsRankHeaderButNotTheRoutersNamespace() {
    var in = headers("X-Data-Parallel-Rank", "1", "x-infera-worker", "forged");
    assertThat(copy(in, From.ENGINE).stream().map(Map.Entry::getKey))
        .containsExactly("X-Data-Parallel-Rank");
  }

  @Test
  void connectionListingNothingOrOnlyItsOwnTokensAllocatesNothing() {
    assertThat(HeaderFilter.connectionListed(headers("Connection", "keep-alive"))).isNull();
    assertThat(HeaderFilter.connectionListed(headers("Connection", " close ,,, "))).isNull();
    assertThat(HeaderFilter.connectionListed(headers("X", "y"))).isNull();
    assertThat(HeaderFilter.connectionListed(headers("Connection", ",A,,b ,")))
        .isEqualTo(Set.of("a", "b"));
  }

  @Provide
  Arbitrary<List<Map.Entry<String, String>>> hostile() {
    Arbitrary<String> names =
        Arbitraries.oneOf(
            Arbitraries.of(
                "Connection",
                "connection",
                "X-Data-Parallel-Rank",
                "x-infera-worker",
                "Keep-Alive",
                "Content-Type",
                "X-A",
                "x-b",
                "Host"),
            Arbitraries.strings().ofMinLength(1).ofMaxLength(12).withCharRange('!', '~'));
    Arbitrary<String> values =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(40).withChars(",; \tXxAaBb-keep-alive"),
            Arbitraries.strings().ofMaxLength(40));
    return Combinators.combine(names, values)
        .as((k, v) -> (Map.Entry<String, String>) new SimpleEntry<>(k, v))
        .list()
        .ofMaxSize(30);
  }

  @Property(tries = 2000)
  void nothingForbiddenEverCrosses(
      @ForAll("hostile") List<Map.Entry<String, String>> in, @ForAll From from) {
    Set<String> listed = HeaderFilter.connectionListed(in);
    List<Map.Entry<String, String>> out = copy(in, from);
    for (Map.Entry<String, String> h : out) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      assertThat(HeaderFilter.HOP_BY_HOP).doesNotContain(name);
      assertThat(listed == null || !listed.contains(name)).as(name).isTrue();
      assertThat(name).doesNotStartWith(HeaderFilter.INTERNAL_PREFIX);
      if (from == From.CLIENT) {
        assertThat(HeaderFilter.INTERNAL_REQUEST).doesNotContain(name);
      }
    }
    // Everything else crosses, in order.
    long allowed =
        in.stream()
            .map(h -> h.getKey().toLowerCase(Locale.ROOT))
            .filter(n -> !HeaderFilter.HOP_BY_HOP.contains(n))
            .filter(n -> listed == null || !listed.contains(n))
            .filter(n -> !n.startsWith(HeaderFilter.INTERNAL_PREFIX))
            .filter(n -> from == From.ENGINE || !HeaderFilter.INTERNAL_REQUEST.contains(n))
            .count();
    assertThat(out).hasSize((int) allowed);
  }
}
