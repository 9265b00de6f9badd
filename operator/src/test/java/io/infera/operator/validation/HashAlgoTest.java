package io.infera.operator.validation;

import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.RouterIndexSpec;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * vLLM pools may choose only a SHA-256 prefix-cache hash (vllm/config/cache.py:
 * PrefixCachingHashAlgo is sha256 | sha256_cbor | xxhash | xxhash_cbor, default sha256); SGLang has
 * no such flag. Also the index cap's bounds.
 */
class HashAlgoTest {

  private static List<String> violations(Engine engine, List<String> args) {
    InferaDeployment idep = idep(engine, PoolRole.MIXED);
    idep.getSpec().getPools().get(0).setArgs(args);
    return SpecValidator.validate(idep).stream().map(Violation::toString).toList();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--prefix-caching-hash-algo sha256",
        "--prefix-caching-hash-algo=sha256_cbor",
        "--prefix_caching_hash_algo=SHA256",
        "--max-model-len 4096"
      })
  void cryptographicChoicesAreAccepted(String arg) {
    assertThat(violations(Engine.VLLM, List.of(arg.split(" ")))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--prefix-caching-hash-algo xxhash",
        "--prefix-caching-hash-algo=xxhash_cbor",
        "--prefix-caching-hash-algo builtin",
        "--prefix-caching-hash-algo=sha256_cbor_64bit",
        "--prefix-caching-hash-algo"
      })
  void nonCryptographicChoicesAreRefusedNamingTheArgument(String arg) {
    List<String> v = violations(Engine.VLLM, List.of(arg.split(" ")));
    assertThat(v)
        .singleElement()
        .asString()
        .contains("spec.pools[0].args[0]", "--prefix-caching-hash-algo", "sha256 or sha256_cbor");
    // The same argument as one token with a space is read the same way.
    assertThat(violations(Engine.VLLM, List.of(arg))).hasSize(1);
  }

  @Property(tries = 300)
  void anyArgumentListIsCheckedWithoutThrowing(@ForAll List<String> args) {
    List<String> copy = new ArrayList<>(args);
    List<String> out = new ArrayList<>();
    HashAlgo.check("f", copy, (f, m) -> out.add(m));
    assertThat(out.size()).isLessThanOrEqualTo(copy.size());
  }

  @ParameterizedTest
  @ValueSource(longs = {0L, -1L, 1_000_000_001L})
  void theIndexCapIsBounded(long maxBlocks) {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    RouterIndexSpec index = new RouterIndexSpec();
    index.setMaxBlocks(maxBlocks);
    idep.getSpec().getRouter().setIndex(index);
    assertThat(SpecValidator.validate(idep))
        .singleElement()
        .asString()
        .contains("spec.router.index.maxBlocks");
    index.setMaxBlocks(1_000_000_000L);
    assertThat(SpecValidator.validate(idep)).isEmpty();
  }
}
