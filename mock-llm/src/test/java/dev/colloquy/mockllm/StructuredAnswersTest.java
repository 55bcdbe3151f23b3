package dev.colloquy.mockllm;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.ResponseFormatJsonSchema;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Structured answers scripted by a {@code mock-json:} cue, as the official client reads them: the
 * cue's text, streamed in pieces, for a request with a {@code json_schema} response format; the usual
 * answer without the format, whatever the message says.
 */
class StructuredAnswersTest {
  private static final MockLlmSettings SETTINGS =
      MockLlmSettings.defaults().withTokens(3).withDelays(Duration.ZERO, Duration.ZERO);
  private static final String ANSWER = "{\"gaps\":[{\"attribute\":\"eye colour\",\"suggestion\":\"Decide\"}]}";

  private static MockLlmServer server;
  private static OpenAIClient client;

  @BeforeAll
  static void start() {
    server = MockLlmServer.start(SETTINGS);
    client = OpenAiClients.to(server, 0);
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  private static ChatCompletionCreateParams.Builder asking(String message) {
    return ChatCompletionCreateParams.builder().model("mock-1").addUserMessage(message);
  }

  private static ResponseFormatJsonSchema schema() {
    return ResponseFormatJsonSchema.builder().jsonSchema(ResponseFormatJsonSchema.JsonSchema.builder()
        .name("narrative_gaps").strict(true)
        .schema(ResponseFormatJsonSchema.JsonSchema.Schema.builder()
            .putAllAdditionalProperties(Map.of("type", JsonValue.from("object"))).build())
        .build()).build();
  }

  private static String streamed(ChatCompletionCreateParams params) {
    ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
    try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
      stream.stream().forEach(accumulator::accumulate);
    }
    return accumulator.chatCompletion().choices().getFirst().message().content().orElse("");
  }

  @Test
  void aStructuredRequestGetsTheCuesTextStreamedInPieces() {
    String text = streamed(asking("Mira looks up.\nmock-json:" + ANSWER + "\nThe end.").responseFormat(schema()).build());

    assertThat(text).isEqualTo(ANSWER);
  }

  @Test
  void aMalformedTextIsSentAsItIs() {
    String text = streamed(asking("mock-json:{\"gaps\": oops").responseFormat(schema()).build());

    assertThat(text).isEqualTo("{\"gaps\": oops");
  }

  @Test
  void withoutTheResponseFormatTheCueIsNotActedOn() {
    String text = client.chat().completions().create(asking("mock-json:" + ANSWER).build())
        .choices().getFirst().message().content().orElse("");

    assertThat(text).isEqualTo(SETTINGS.text(3));
  }
}
