package dev.colloquy.mockllm;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.FunctionDefinition;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionAssistantMessageParam;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionMessageFunctionToolCall;
import com.openai.models.chat.completions.ChatCompletionMessageToolCall;
import com.openai.models.chat.completions.ChatCompletionToolMessageParam;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tool calls scripted by cues in the user's message, as the official client reads them: assembled
 * from streamed pieces by openai-java's own accumulator, or whole; a normal answer once the tool's
 * result is in the conversation, and never when the request offers no tools.
 */
class ToolCallsTest {
  private static final MockLlmSettings SETTINGS =
      MockLlmSettings.defaults().withTokens(3).withDelays(Duration.ZERO, Duration.ZERO);

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
    return ChatCompletionCreateParams.builder()
        .model("mock-1")
        .addUserMessage(message)
        .addFunctionTool(FunctionDefinition.builder().name("knowledge_retrieval").build());
  }

  private static ChatCompletion streamed(ChatCompletionCreateParams params) {
    ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
    try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
      stream.stream().forEach(accumulator::accumulate);
    }
    return accumulator.chatCompletion();
  }

  private static List<ChatCompletionMessageFunctionToolCall> calls(ChatCompletion completion) {
    return completion.choices().getFirst().message().toolCalls().orElse(List.of()).stream()
        .map(ChatCompletionMessageToolCall::asFunction).toList();
  }

  @Test
  void aCueMakesTheStreamedAnswerCallTheToolWithItsArgumentsInPieces() {
    ChatCompletion completion = streamed(asking(
        "What is the refund policy? mock-tool:knowledge_retrieval{\"query\":\"refund policy\"} mock-tool:store_memory")
        .build());

    assertThat(completion.choices().getFirst().finishReason().asString()).isEqualTo("tool_calls");
    assertThat(completion.choices().getFirst().message().content()).isEmpty();
    List<ChatCompletionMessageFunctionToolCall> calls = calls(completion);
    assertThat(calls).extracting(call -> call.function().name()).containsExactly("knowledge_retrieval", "store_memory");
    assertThat(calls).extracting(call -> call.function().arguments())
        .containsExactly("{\"query\":\"refund policy\"}", "{}");
    assertThat(calls.get(0).id()).isNotEqualTo(calls.get(1).id()).startsWith("call_");
  }

  @Test
  void onceTheToolsResultFollowsTheModelAnswersInText() {
    ChatCompletion completion = streamed(asking("mock-tool:knowledge_retrieval{\"query\":\"refunds\"}")
        .addMessage(ChatCompletionAssistantMessageParam.builder()
            .addToolCall(ChatCompletionMessageFunctionToolCall.builder().id("call_1")
                .function(ChatCompletionMessageFunctionToolCall.Function.builder()
                    .name("knowledge_retrieval").arguments("{\"query\":\"refunds\"}").build())
                .build())
            .build())
        .addMessage(ChatCompletionToolMessageParam.builder().toolCallId("call_1").content("{\"passages\":[]}").build())
        .build());

    assertThat(completion.choices().getFirst().finishReason().asString()).isEqualTo("stop");
    assertThat(completion.choices().getFirst().message().content()).hasValue(SETTINGS.text(3));
    assertThat(calls(completion)).isEmpty();
  }

  @Test
  void anAlwaysCueCallsAgainAfterTheResult() {
    ChatCompletion completion = streamed(asking("mock-tool-always:knowledge_retrieval{\"query\":\"again\"}")
        .addMessage(ChatCompletionToolMessageParam.builder().toolCallId("call_1").content("{}").build())
        .build());

    assertThat(calls(completion)).extracting(call -> call.function().name()).containsExactly("knowledge_retrieval");
  }

  @Test
  void withoutToolsOfferedACueIsJustText() {
    ChatCompletion completion = streamed(ChatCompletionCreateParams.builder().model("mock-1")
        .addUserMessage("mock-tool:knowledge_retrieval").build());

    assertThat(completion.choices().getFirst().finishReason().asString()).isEqualTo("stop");
    assertThat(calls(completion)).isEmpty();
  }

  @Test
  void aWholeAnswerCarriesTheCallsInItsMessage() {
    ChatCompletion completion = client.chat().completions()
        .create(asking("mock-tool:knowledge_retrieval{\"query\":\"hours\"}").build());

    assertThat(completion.choices().getFirst().finishReason().asString()).isEqualTo("tool_calls");
    assertThat(calls(completion)).extracting(call -> call.function().arguments()).containsExactly("{\"query\":\"hours\"}");
  }
}
