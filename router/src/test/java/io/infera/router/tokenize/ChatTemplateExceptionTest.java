package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.jinja.TemplateException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every engine failure leaves tokenize as a ChatTemplateException with the engine's wording. */
class ChatTemplateExceptionTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "{{ raise_exception('no system role') }}|RAISED|no system role"
            + "|chat template raised: no system role",
        "{{ missing.attr }}|UNDEFINED|'missing' is undefined"
            + "|chat template used an undefined value: 'missing' is undefined",
        "{{ [].append(1) }}|SECURITY|"
            + "access to attribute 'append' of 'list' object is unsafe."
            + "|chat template broke the sandbox: access to attribute 'append' of 'list' object is"
            + " unsafe.",
        "{{ 1 // 0 }}|RUNTIME|integer division or modulo by zero"
            + "|chat template failed: integer division or modulo by zero",
      })
  void renderFailuresKeepTheEnginesMessageAndDescription(
      String source, TemplateException.Kind kind, String message, String description) {
    ChatTemplate t = ChatTemplate.of(source, Map.of());
    assertThatThrownBy(() -> t.render(ChatInput.of(List.of())))
        .isInstanceOfSatisfying(
            ChatTemplateException.class,
            e -> {
              assertThat(e.getMessage()).isEqualTo(message);
              assertThat(e.describe()).isEqualTo(description);
              assertThat(e.getCause())
                  .isInstanceOfSatisfying(
                      TemplateException.class, c -> assertThat(c.kind()).isEqualTo(kind));
            });
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {"{% if %}", "{{ 1 +", "{% for x in y %}no end"})
  void aTemplateThatDoesNotParseIsAChatTemplateExceptionOfKindSyntax(String source) {
    assertThatThrownBy(() -> ChatTemplate.of(source, Map.of()))
        .isInstanceOfSatisfying(
            ChatTemplateException.class,
            e -> {
              assertThat(e.describe()).startsWith("chat template syntax error");
              assertThat(e.getCause())
                  .isInstanceOfSatisfying(
                      TemplateException.class,
                      c -> assertThat(c.kind()).isEqualTo(TemplateException.Kind.SYNTAX));
            });
  }

  @ParameterizedTest(name = "content={0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "|continue_final_message is set but the final message has no text to continue",
        "absent|continue_final_message is set but the final message does not appear in the"
            + " rendered chat",
      })
  void continueFinalMessageFailuresAreChatTemplateExceptions(String content, String message) {
    ChatTemplate t = ChatTemplate.of("{{ 'rendered text' }}", Map.of());
    Map<String, Object> last = new HashMap<>(Map.of("role", "user"));
    if (content != null) {
      last.put("content", content);
    }
    ChatInput input = new ChatInput(List.of(last), null, null, false, true, Map.of());
    assertThatThrownBy(() -> t.render(input))
        .isInstanceOf(ChatTemplateException.class)
        .hasMessage(message);
  }
}
