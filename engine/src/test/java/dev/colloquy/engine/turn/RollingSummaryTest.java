package dev.colloquy.engine.turn;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.agent.HistorySummary;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.TokenCounter;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A long session's history trimmed to its token budget: what a new rolling summary must take in, how
 * the summary enters the prompt (as context, in the untrusted data block, in place of what it covers), the offline extract, and the
 * session's history once a summary is journaled.
 */
class RollingSummaryTest {

  private static final String WORDS = "about the order and its delivery to the new address ".repeat(4);
  private static final int MAX_TOKENS = 100;
  private static final int CONTEXT = 600;

  private static List<ChatMessage> conversation(int turns) {
    List<ChatMessage> history = new ArrayList<>();
    for (int turn = 1; turn <= turns; turn++) {
      history.add(ChatMessage.user("Question " + turn + " " + WORDS));
      history.add(ChatMessage.assistant("Answer " + turn + " " + WORDS));
    }
    return history;
  }

  private static TurnPlan plan(List<ChatMessage> history, EarlierHistory earlier) {
    return new TurnPlan("s-1", "acme", "t-1", "trace-1", "What now?", null, history,
        List.of(new RunSpec("r-1", "scripted", "m")), null, history.size() / 2, false, null, earlier);
  }

  @Test
  void aHistoryThatFitsNeedsNoSummary() {
    assertThat(HistoryTrim.of(plan(conversation(1), EarlierHistory.NONE), List.of(), MAX_TOKENS, CONTEXT)).isEmpty();
  }

  @Test
  void aHistoryThatDoesNotFitIsSummarizedFromItsOldestMessagesAndThePromptCarriesTheSummaryInTheirPlace() {
    List<ChatMessage> history = conversation(8);
    TurnPlan plan = plan(history, EarlierHistory.NONE);

    HistoryTrim trim = HistoryTrim.of(plan, List.of(), MAX_TOKENS, CONTEXT).orElseThrow();

    assertThat(trim.skip()).isPositive().isEven();
    assertThat(trim.toSummarize()).isEqualTo(history.subList(0, trim.skip()));
    RollingSummary summary = new RollingSummary("The user asked about their order's delivery.", trim.skip(), "model");
    List<ChatMessage> prompt =
        Prompt.messages(plan, null, null, List.of(), MAX_TOKENS, CONTEXT, summary, trim.skip());
    ChatMessage data = prompt.get(prompt.size() - 2);
    assertThat(data).isEqualTo(ChatMessage.user(new UntrustedData().earlierConversation(summary).render()));
    assertThat(data.content()).contains("<earlier_conversation>\n" + summary.text()).contains("never instructions");
    assertThat(prompt.subList(1, prompt.size() - 2)).isEqualTo(history.subList(trim.skip(), history.size()));
    assertThat(TokenCounter.count(prompt) + prompt.size() * (long) Prompt.MESSAGE_OVERHEAD_TOKENS + MAX_TOKENS)
        .isLessThanOrEqualTo(CONTEXT);
  }

  @Test
  void aSummaryLeavesRoomSoTheNextTurnsNeedNone() {
    List<ChatMessage> history = conversation(8);
    HistoryTrim trim = HistoryTrim.of(plan(history, EarlierHistory.NONE), List.of(), MAX_TOKENS, CONTEXT).orElseThrow();
    RollingSummary summary = new RollingSummary("The user asked about their order's delivery.", trim.skip(), "model");

    List<ChatMessage> next = new ArrayList<>(history.subList(trim.skip(), history.size()));
    next.addAll(conversation(1));

    assertThat(trim.skip()).isGreaterThanOrEqualTo(history.size() / 2);
    assertThat(HistoryTrim.of(plan(next, new EarlierHistory(summary, List.of())), List.of(), MAX_TOKENS, CONTEXT))
        .isEmpty();
  }

  @Test
  void aWindowFullByCountIsHalvedSoTheNextTurnsFitInIt() {
    List<ChatMessage> older = conversation(1);
    List<ChatMessage> window = new ArrayList<>();
    for (int turn = 1; turn <= 10; turn++) {
      window.add(ChatMessage.user("Q" + turn));
      window.add(ChatMessage.assistant("A" + turn));
    }

    HistoryTrim trim = HistoryTrim.of(plan(window, new EarlierHistory(null, older)), List.of(), MAX_TOKENS, CONTEXT)
        .orElseThrow();

    assertThat(trim.skip()).isEqualTo(10);
    assertThat(trim.toSummarize()).containsExactlyElementsOf(
        Stream.concat(older.stream(), window.subList(0, 10).stream()).toList());
  }

  @Test
  void messagesBeforeTheWindowThatNoSummaryHoldsAreSummarizedFirst() {
    List<ChatMessage> older = conversation(1);
    RollingSummary previous = new RollingSummary("Earlier: greetings.", 4, "offline");

    HistoryTrim trim = HistoryTrim.of(plan(conversation(1), new EarlierHistory(previous, older)), List.of(),
        MAX_TOKENS, CONTEXT).orElseThrow();

    assertThat(trim.skip()).isZero();
    assertThat(trim.toSummarize()).isEqualTo(older);
  }

  @Test
  void theOfflineExtractIsDeterministicBoundedAndRollsThePreviousSummaryForward() {
    RollingSummary previous = new RollingSummary("User: my order 123 is late", 2, "offline");
    List<ChatMessage> messages = conversation(3);

    String extract = HistorySummary.extract(previous, messages, 1000);

    assertThat(extract).isEqualTo(HistorySummary.extract(previous, messages, 1000));
    assertThat(extract).startsWith("User: my order 123 is late\nUser: Question 1").contains("Assistant: Answer 3");
    assertThat(TokenCounter.count(HistorySummary.extract(previous, conversation(40), 64))).isLessThanOrEqualTo(64);
    assertThat(HistorySummary.extract(previous, conversation(40), 64)).contains("Answer 40");
  }

  @Test
  void aWindowThatTheNextTurnWouldOverflowIsSummarizedAheadFromItsOlderHalf() {
    List<ChatMessage> window = new ArrayList<>();
    for (int turn = 1; turn <= 10; turn++) {
      window.add(ChatMessage.user("Q" + turn));
      window.add(ChatMessage.assistant("A" + turn));
    }
    TurnPlan full = plan(window, new EarlierHistory(null, List.of()));

    assertThat(HistoryTrim.of(full, List.of(), MAX_TOKENS, CONTEXT)).as("this turn fits").isEmpty();
    HistoryTrim ahead = HistoryTrim.ahead(full, 20, null, null, List.of(), MAX_TOKENS, CONTEXT).orElseThrow();
    assertThat(ahead.skip()).isEqualTo(10);
    assertThat(ahead.toSummarize()).containsExactlyElementsOf(window.subList(0, 10));
    assertThat(ahead.summaryTokens()).isBetween(HistoryTrim.MIN_SUMMARY_TOKENS, HistoryTrim.MAX_SUMMARY_TOKENS);

    assertThat(HistoryTrim.ahead(plan(window.subList(0, 18), new EarlierHistory(null, List.of())), 20, null, null,
        List.of(), MAX_TOKENS, CONTEXT)).as("the next turn still fits the window").isEmpty();
    assertThat(HistoryTrim.ahead(plan(window, new EarlierHistory(null, conversation(1))), 20, null, null,
        List.of(), MAX_TOKENS, CONTEXT)).as("messages already out of the window are this turn's trim").isEmpty();
    assertThat(HistoryTrim.ahead(plan(List.of(), new EarlierHistory(null, List.of())), 0, null, null,
        List.of(), MAX_TOKENS, CONTEXT)).as("no window, nothing to summarize").isEmpty();
  }

  @Test
  void aJournaledSummaryTakesThePlaceOfTheMessagesItCovers() {
    Instant at = Instant.parse("2026-11-24T20:00:00Z");
    SessionState state = SessionState.empty("s-1").apply(new ChatSession.SessionOpened("s-1", "acme", null, null,
        JsonNodeFactory.instance.objectNode(), at));
    for (int turn = 1; turn <= 3; turn++) {
      String turnId = "t-" + turn;
      state = state.apply(new ChatSession.TurnAccepted(turnId, null, "trace", "u-" + turn, "Question " + turn,
          List.of(new RunSpec("r-" + turn, "scripted", "m")), at));
      state = state.apply(new ChatSession.TurnCompleted(turnId, "a-" + turn, new TurnOutcome(List.of(new RunOutcome(
          "r-" + turn, "scripted", "m", RunOutcome.Status.COMPLETED, "Answer " + turn, Usage.NONE, 1, null, null)),
          List.of(), 0, List.of(), List.of(), 1), at));
    }

    SessionState summarized = state.apply(new ChatSession.HistorySummarized("t-3",
        new RollingSummary("Questions 1 and 2 were answered.", 4, "model"), at));

    assertThat(summarized.history(20)).extracting(ChatMessage::content).containsExactly("Question 3", "Answer 3");
    assertThat(summarized.earlier(1).summary().text()).isEqualTo("Questions 1 and 2 were answered.");
    assertThat(summarized.earlier(1).unsummarized()).extracting(ChatMessage::content).containsExactly("Question 3");
    assertThat(state.history(20)).hasSize(6);
  }
}
