package dev.colloquy.engine.model.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ResponseSchema;
import dev.colloquy.engine.model.ToolCall;
import dev.colloquy.engine.model.ToolExchange;
import dev.colloquy.engine.model.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The body the model client writes is the one openai-java's chat service sent for the same request:
 * field by field (each path compared, so a difference names its field), then byte for byte.
 */
public class ChatCompletionBodyTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static final List<ChatMessage> CONVERSATION = List.of(
      ChatMessage.system("Answer in \"quotes\" \\ with\nnewlines\tand \u0001 controls."),
      ChatMessage.user("caf\u00e9 \u4e2d \ud83d\ude00 </script>"),
      ChatMessage.assistant("An earlier answer."),
      ChatMessage.user("And now?"));

  static ToolSpec weatherTool() throws Exception {
    return new ToolSpec("weather", "The weather in a city", JSON.readTree("""
        {"type":"object","properties":{"city":{"type":"string","enum":["Oslo","Lima"]},"days":{"type":"integer","minimum":1}},
         "required":["city"],"additionalProperties":false}"""));
  }

  static ResponseSchema verdictSchema() throws Exception {
    return new ResponseSchema("verdict", (ObjectNode) JSON.readTree("""
        {"type":"object","properties":{"ok":{"type":"boolean"},"score":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}},
         "required":["ok","score","tags"],"additionalProperties":false}"""));
  }

  /** Tools offered, two earlier rounds (one with text before its calls), and a structured answer asked. */
  public static ChatRequest everything() throws Exception {
    return new ChatRequest("gpt-test", CONVERSATION, List.of(), 300, List.of(weatherTool()),
        List.of(
            new ToolExchange("", List.of(new ToolCall("call_1", "weather", "{\"city\":\"Oslo\"}"),
                    new ToolCall("call_2", "weather", "{\"city\":\"Lima\",\"days\":2}")),
                List.of(new ToolExchange.Result("call_1", "rain"), new ToolExchange.Result("call_2", "{\"sun\":true}"))),
            new ToolExchange("Let me check once more.", List.of(new ToolCall("call_3", "weather", "not json")),
                List.of(new ToolExchange.Result("call_3", "unknown")))),
        verdictSchema());
  }

  @Test
  void aPlainConversationIsWrittenAsOpenAiJavaWroteIt() throws Exception {
    sameAsOpenAiJava(new ChatRequest("mock", CONVERSATION, List.of(), 256));
  }

  @Test
  void toolsAndEarlierRoundsAreWrittenAsOpenAiJavaWroteThem() throws Exception {
    ChatRequest request = everything();
    sameAsOpenAiJava(new ChatRequest(request.model(), request.messages(), List.of(), 128, request.tools(),
        request.exchanges()));
  }

  @Test
  void earlierRoundsWithoutToolsOfferedAreWrittenAsOpenAiJavaWroteThem() throws Exception {
    ChatRequest request = everything();
    sameAsOpenAiJava(new ChatRequest(request.model(), request.messages(), List.of(), 128, List.of(),
        request.exchanges()));
  }

  @Test
  void aStructuredAnswerIsAskedAsOpenAiJavaAskedIt() throws Exception {
    sameAsOpenAiJava(new ChatRequest("mock", CONVERSATION, List.of(), 64, List.of(), List.of(), verdictSchema()));
  }

  @Test
  void everythingTogetherIsWrittenAsOpenAiJavaWroteIt() throws Exception {
    JsonNode written = sameAsOpenAiJava(everything());

    assertThat(written.path("stream").asBoolean()).isTrue();
    assertThat(written.path("stream_options").path("include_usage").asBoolean()).isTrue();
    assertThat(written.path("response_format").path("type").asText()).isEqualTo("json_schema");
    assertThat(written.path("response_format").path("json_schema").path("strict").asBoolean()).isTrue();
    assertThat(written.path("tools").get(0).path("function").path("parameters").path("required").get(0).asText())
        .isEqualTo("city");
    assertThat(written.path("messages")).hasSize(CONVERSATION.size() + 5);
  }

  private static JsonNode sameAsOpenAiJava(ChatRequest request) throws Exception {
    byte[] written = ChatCompletionBody.of(request);
    byte[] reference = OpenAiParams.streamedBody(request);
    JsonNode writtenTree = JSON.readTree(written);
    JsonNode referenceTree = JSON.readTree(reference);
    assertSameFields("", writtenTree, referenceTree);
    assertThat(new String(written, StandardCharsets.UTF_8)).isEqualTo(new String(reference, StandardCharsets.UTF_8));
    return writtenTree;
  }

  /** Every field of both trees, path by path, in order, so that a failure names the field that differs. */
  public static void assertSameFields(String path, JsonNode written, JsonNode reference) {
    assertThat(written.getNodeType()).as("the type of %s", path.isEmpty() ? "the body" : path)
        .isEqualTo(reference.getNodeType());
    if (reference.isObject()) {
      assertThat(iterable(written.fieldNames())).as("the fields of %s", path.isEmpty() ? "the body" : path)
          .containsExactlyElementsOf(iterable(reference.fieldNames()));
      reference.properties().forEach(field ->
          assertSameFields(path + "." + field.getKey(), written.get(field.getKey()), field.getValue()));
    } else if (reference.isArray()) {
      assertThat(written.size()).as("the length of %s", path).isEqualTo(reference.size());
      for (int i = 0; i < reference.size(); i++) {
        assertSameFields(path + "[" + i + "]", written.get(i), reference.get(i));
      }
    } else {
      assertThat(written).as(path).isEqualTo(reference);
    }
  }

  private static List<String> iterable(Iterator<String> names) {
    List<String> list = new java.util.ArrayList<>();
    names.forEachRemaining(list::add);
    return list;
  }
}
