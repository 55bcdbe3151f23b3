package dev.colloquy.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.offline.OfflineResponder;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class OfflineResponderTest extends ChatModelContract {

  @Override
  protected ChatModel model(Executor executor) {
    return new OfflineResponder(executor);
  }

  @Override
  protected String expectedAnswer() {
    return """
        No language model is configured. These passages from the knowledge base match your message:

        [1] policy.md — Refunds:
        Refunds are accepted within 30 days.""";
  }

  private RecordingListener answer(List<Passage> passages) throws Exception {
    return streamToTheEnd(model(threads),
        new ChatRequest("offline", List.of(ChatMessage.user("What is the refund window?")), passages, 256));
  }

  @Test
  void withNothingRetrievedItSaysSoPlainly() throws Exception {
    RecordingListener listener = answer(List.of());
    assertThat(listener.text()).contains("No language model is configured").contains("nothing in the knowledge base");
    assertThat(listener.tokens).hasSizeGreaterThan(5);
    assertThat(model(threads).provider()).isEqualTo("offline");
  }

  @Test
  void itQuotesTheRetrievedPassagesWithTheirSourcesDeterministically() throws Exception {
    List<Passage> passages = List.of(
        new Passage("d1", "policy.md", "Refunds", 0, 0.9, "Refunds are accepted within 30 days."),
        new Passage("d2", "faq.html", "Shipping", 3, 0.4, "Shipping takes 5 days."));
    RecordingListener first = answer(passages);
    RecordingListener second = answer(passages);
    assertThat(first.text()).isEqualTo(second.text());
    assertThat(first.tokens).isEqualTo(second.tokens);
    assertThat(first.text()).contains("[1] policy.md — Refunds:\nRefunds are accepted within 30 days.")
        .contains("[2] faq.html — Shipping:");
  }

  @Test
  void itCountsTheUsageItCannotBeTold() throws Exception {
    RecordingListener listener = answer(List.of());
    TokenUsage usage = listener.completed.get();

    assertThat(usage.promptTokens()).isEqualTo(TokenCounter.count("What is the refund window?"));
    assertThat(usage.completionTokens()).isEqualTo(TokenCounter.count(listener.text()));
  }
}
