package io.infera.router.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactionTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "nats://user:pass@host:4222|nats://***@host:4222",
        "nats://token@host|nats://***@host",
        "nats://a:b@h1:4222,nats://c:d@h2:4222|nats://***@h1:4222,nats://***@h2:4222",
        "connect tls://u:p@ss@h/x failed|connect tls://***@h/x failed",
        "http://host:8000/path?x=a@b|http://host:8000/path?x=a@b",
        "nats://host:4222|nats://host:4222",
        "mail me at a@b.c|mail me at a@b.c",
        "''|''"
      })
  void urlUserInfoIsReplaced(String in, String out) {
    assertThat(Redaction.url(in)).isEqualTo(out);
  }

  @ParameterizedTest
  @CsvSource({
    "token,true",
    "auth_token,true",
    "password,true",
    "nkey_seed,true",
    "Authorization,true",
    "client_secret,true",
    "authToken,true",
    "api_key,true",
    "apiKey,true",
    "NKEY_SEED,true",
    "tokenize_failure,false",
    "tokenizer,false",
    "max_tokens,false",
    "key,false",
    "token_file,false",
    "credentials_path,false",
    "token_required,false",
    "url,false",
    "model,false"
  })
  void secretKeysAreRecognised(String key, boolean secret) {
    assertThat(Redaction.isSecretKey(key)).isEqualTo(secret);
  }

  @ParameterizedTest
  @CsvSource({"token", "password"})
  void nestedValuesAndListsAreRedacted(String key) {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put(key, "hunter2");
    inner.put("urls", List.of("nats://a:hunter2@h"));
    inner.put("n", 3);
    inner.put("none", null);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("nats", inner);
    String out = String.valueOf(Redaction.redact(doc));
    assertThat(out).doesNotContain("hunter2").contains("n=3").contains("none=null");
  }

  @Property(tries = 2000)
  void aPasswordInAUrlNeverSurvives(
      @ForAll @AlphaChars @StringLength(min = 1, max = 10) String user,
      @ForAll @StringLength(min = 6, max = 20) String password,
      @ForAll @AlphaChars @StringLength(min = 1, max = 10) String host) {
    String secret = "9" + password.replaceAll("[/\\s?#\"]", "") + "9";
    String url = "nats://" + user + ":" + secret + "@" + host + ":4222";
    String out = Redaction.url("error talking to " + url + ": refused");
    assertThat(out).doesNotContain(secret).contains("nats://***@" + host + ":4222");
  }
}
