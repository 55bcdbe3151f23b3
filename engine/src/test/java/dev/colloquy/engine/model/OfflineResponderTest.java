package dev.colloquy.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.offline.OfflineResponder;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OfflineResponderTest {

  private final OfflineResponder responder = new OfflineResponder(Executors.newVirtualThreadPerTaskExecutor());

  private RecordingListener answer(List<Passage> passages) throws Exception {
    RecordingListener listener = new RecordingListener();
    responder.stream(new ChatRequest("offline", List.of(ChatMessage.user("What is the refund window?")), passages),
        listener);
    listener.completed.get(5, TimeUnit.SECONDS);
    return listener;
  }

  @Test
  void withNothingRetrievedItSaysSoPlainly() throws Exception {
    RecordingListener listener = answer(List.of());
    assertThat(listener.text()).contains("No language model is configured").contains("nothing in the knowledge base");
    assertThat(listener.tokens).hasSizeGreaterThan(5);
    assertThat(responder.provider()).isEqualTo("offline");
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
    assertThat(first.completed.get().completionTokens()).isPositive();
  }
}
