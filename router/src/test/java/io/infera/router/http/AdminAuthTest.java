package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class AdminAuthTest {

  @TempDir Path dir;

  private static final AdminAuth AUTH = AdminAuth.token("t0k3n");

  @Test
  void noTokenLetsEverythingIn() {
    assertThat(AdminAuth.none().required()).isFalse();
    assertThat(AdminAuth.none().allows(null)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"Bearer t0k3n", "bearer t0k3n", "BEARER t0k3n", "Bearer  t0k3n "})
  void theRightTokenIsLetIn(String header) {
    assertThat(AUTH.allows(header)).isTrue();
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(
      strings = {
        "",
        "Bearer",
        "Bearer ",
        "t0k3n",
        "Basic t0k3n",
        "Bearer t0k3",
        "Bearer t0k3n0",
        "Bearer T0K3N",
        "Bearer\tt0k3n",
        "Bearert0k3n"
      })
  void anythingElseIsRefused(String header) {
    assertThat(AUTH.allows(header)).isFalse();
  }

  @Test
  void aHugeHeaderIsRefusedWithoutHashingIt() {
    assertThat(AUTH.allows("Bearer " + "x".repeat(AdminAuth.MAX_TOKEN_BYTES + 1))).isFalse();
  }

  @Property(tries = 1000)
  void aRandomTokenIsRefused(@ForAll String presented) {
    assertThat(AUTH.allows("Bearer " + presented)).isEqualTo(presented.strip().equals("t0k3n"));
  }

  @Test
  void theFileIsReadWithoutItsNewlineAndItsLimitsAreNamed() throws Exception {
    Path f = Files.writeString(dir.resolve("token"), "t0k3n\n");
    assertThat(AdminAuth.fromFile(f).allows("Bearer t0k3n")).isTrue();
    Path atLimit = Files.writeString(dir.resolve("limit"), "a".repeat(AdminAuth.MAX_TOKEN_BYTES));
    assertThat(AdminAuth.fromFile(atLimit).required()).isTrue();
    Path big = Files.writeString(dir.resolve("big"), "a".repeat(AdminAuth.MAX_TOKEN_BYTES + 1));
    assertThatThrownBy(() -> AdminAuth.fromFile(big))
        .hasMessageContaining("admin.tokenFile")
        .hasMessageNotContaining("aaaa");
    Path blank = Files.writeString(dir.resolve("blank"), "\n\t ");
    assertThatThrownBy(() -> AdminAuth.fromFile(blank)).hasMessageContaining("is empty");
    assertThatThrownBy(() -> AdminAuth.fromFile(dir.resolve("absent")))
        .hasMessageContaining("cannot be read");
  }
}
