package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A session's state does not grow with its turns: it keeps the newest ones and totals of all, and
 * pages its messages from what it keeps, saying where the rest of the history is to be read.
 */
class LongSessionStateTest {

  private static final Instant START = Instant.parse("2026-11-21T10:00:00Z");

  @Test
  void aLongSessionKeepsItsNewestTurnsAndTotalsOverAll() {
    SessionState state = session(200, "answer");

    assertThat(state.turns()).hasSize(SessionState.TURNS_KEPT);
    assertThat(state.turns().getFirst().ordinal()).isEqualTo(151);
    assertThat(state.turns().getLast().ordinal()).isEqualTo(200);
    assertThat(state.totals().turns()).isEqualTo(200);
    var summary = state.summarize(START.plusSeconds(10_000));
    assertThat(summary.turns()).isEqualTo(200);
    assertThat(summary.completedTurns()).isEqualTo(200);
    Usage usage = summary.usageByModel().get("p/m");
    assertThat(usage.totalTokens()).isEqualTo(3000);
    assertThat(usage.costUsd()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(state.lastActivity()).isEqualTo(START.plusSeconds(2 * 200));
    assertThat(state.narrativeDeltaAfter(outcome("x")).path("completed_turns").asInt()).isEqualTo(200);
    assertThat(state.turnByIdempotencyKey("key-200")).isPresent();
    assertThat(state.turnByIdempotencyKey("key-100")).as("a key older than the kept turns").isEmpty();
    assertThat(state.history(100)).hasSize(100);
    assertThat(state.hasRoomForTurn(200)).isFalse();
    assertThat(state.hasRoomForTurn(201)).isTrue();
  }

  @Test
  void aPendingTurnIsKeptHoweverManyTurnsEndAfterIt() {
    SessionState state = opened().apply(accepted(1));
    for (int turn = 2; turn <= 80; turn++) {
      state = state.apply(accepted(turn)).apply(completed(turn, "answer"));
    }

    assertThat(state.turns()).hasSize(SessionState.TURNS_KEPT + 1);
    assertThat(state.runningTurn().map(TurnRecord::ordinal)).contains(1);
    assertThat(state.apply(completed(1, "late")).totals().completedTurns()).isEqualTo(80);
  }

  @Test
  void theNewestPageIsServedFromTheKeptTurns() {
    SessionState state = session(60, "answer");

    SessionView newest = state.view();
    assertThat(newest.messages()).hasSize(SessionState.PAGE_MESSAGES);
    assertThat(newest.messages().getLast().content()).isEqualTo("answer 60");
    assertThat(newest.messages().getFirst().content()).isEqualTo("question 11");
    assertThat(newest.page()).isEqualTo(SessionView.Page.complete(true));

    SessionView ten = state.view(null, 10);
    assertThat(ten.messages()).extracting(SessionView.MessageView::content).startsWith("question 56").endsWith("answer 60");
  }

  @Test
  void aPageThatRunsOutOfKeptTurnsGoesOnInTheReadSide() {
    SessionState state = session(60, "answer");
    String firstKept = state.view().messages().getFirst().messageId();

    SessionView beforeKept = state.view(firstKept, 30);
    assertThat(beforeKept.messages()).isEmpty();
    assertThat(beforeKept.page()).isEqualTo(new SessionView.Page(true, 11, false));

    String question13 = messageWith(state, "question 13");
    SessionView shortPage = state.view(question13, 30);
    assertThat(shortPage.messages()).extracting(SessionView.MessageView::content)
        .containsExactly("question 11", "answer 11", "question 12", "answer 12");
    assertThat(shortPage.page().continuesBeforeTurn()).isEqualTo(11);

    assertThat(state.view("not-a-kept-message", 30).page()).isEqualTo(new SessionView.Page(false, null, true));
  }

  @Test
  void aShortSessionsPageIsTheWholeHistory() {
    SessionView view = session(3, "answer").view();

    assertThat(view.messages()).hasSize(6);
    assertThat(view.page()).isEqualTo(SessionView.Page.complete(false));
  }

  @Test
  void aPageStopsAtItsTextBudgetButAlwaysHoldsOneMessage() {
    String big = "x".repeat((int) (SessionState.PAGE_BYTES * 3 / 4));
    SessionState state = session(3, big);

    SessionView newest = state.view();
    assertThat(newest.messages()).extracting(SessionView.MessageView::content).containsExactly("question 3", big + " 3");
    assertThat(newest.page().earlier()).isTrue();

    String lastAnswer = newest.messages().getLast().messageId();
    String question3 = newest.messages().getFirst().messageId();
    assertThat(state.view(question3, 10).messages()).extracting(SessionView.MessageView::content)
        .containsExactly("question 2", big + " 2");
    assertThat(state.view(lastAnswer, 1).messages()).hasSize(1);
  }

  @Test
  void theTextOfRunsThatAreNoMessageCountsTowardsThePage() {
    // Turns cut off at the answer limit keep what they streamed; the view carries it in its turns.
    String streamed = "y".repeat((int) (SessionState.PAGE_BYTES * 6 / 10));
    SessionState state = opened();
    for (int turn = 1; turn <= 5; turn++) {
      RunOutcome cut = new RunOutcome("r-" + turn, "p", "m", RunOutcome.Status.FAILED, streamed + turn,
          new Usage(10, 5, 0.01), 1, "MODEL_ANSWER_TOO_LARGE", "cut off");
      state = state.apply(accepted(turn)).apply(new ChatSession.TurnFailed("turn-" + turn, "MODEL_ANSWER_TOO_LARGE",
          "cut off", new TurnOutcome(List.of(cut), List.of(), 0.5, List.of(), List.of(), 1), START.plusSeconds(2L * turn)));
    }

    SessionView newest = state.view();
    assertThat(newest.messages()).extracting(SessionView.MessageView::content).containsExactly("question 5");
    assertThat(newest.turns()).extracting(SessionView.TurnView::turnId).containsExactly("turn-5");
    assertThat(newest.page().earlier()).isTrue();
    SessionView before = state.view(newest.messages().getFirst().messageId(), SessionState.MAX_PAGE_MESSAGES);
    assertThat(before.messages()).extracting(SessionView.MessageView::content).containsExactly("question 4");
    long carried = before.turns().stream().flatMap(turn -> turn.outcomes().stream())
        .mapToLong(run -> run.text().length()).sum();
    assertThat(carried).isLessThanOrEqualTo(SessionState.PAGE_BYTES);
    assertThat(carried(before)).isLessThanOrEqualTo(SessionState.PAGE_BYTES);
  }

  @Test
  void aViewCarriesEachTextOfAFanOutTurnOnceWhetherItsPageHoldsTheWholeTurnOrPartOfIt() {
    String answer = "z".repeat((int) (SessionState.PAGE_BYTES * 6 / 10));
    List<RunOutcome> runs = List.of(
        new RunOutcome("r-1", "p", "m1", RunOutcome.Status.COMPLETED, answer + 1, new Usage(10, 5, 0.01), 1, null, null),
        new RunOutcome("r-2", "p", "m2", RunOutcome.Status.COMPLETED, answer + 2, new Usage(10, 5, 0.01), 1, null, null),
        new RunOutcome("r-3", "p", "m3", RunOutcome.Status.FAILED, answer + 3, new Usage(10, 5, 0.01), 1,
            "MODEL_ANSWER_TOO_LARGE", "cut off"));
    SessionState state = opened().apply(accepted(1)).apply(new ChatSession.TurnCompleted("turn-1", "a-1",
        new TurnOutcome(runs, List.of(), 0.5, List.of(), List.of(), 1), START.plusSeconds(2)));

    SessionView whole = state.view();
    assertThat(whole.messages()).extracting(SessionView.MessageView::content)
        .containsExactly("question 1", answer + 1, answer + 2);
    SessionView.TurnView turn = whole.turns().getFirst();
    assertThat(turn.message()).as("the question is one of the messages").isNull();
    assertThat(turn.outcomes()).extracting(RunOutcome::text).containsExactly(null, null, answer + 3);
    assertThat(carried(whole)).isEqualTo(3L * (answer.length() + 1) + "question 1".length());
    assertThat(whole.messageOf(turn)).isEqualTo("question 1");
    assertThat(turn.outcomes()).extracting(run -> whole.textOf(turn, run))
        .containsExactly(answer + 1, answer + 2, answer + 3);

    SessionView part = state.view(whole.messages().getLast().messageId(), 1);
    SessionView.TurnView partTurn = part.turns().getFirst();
    assertThat(part.messages()).extracting(SessionView.MessageView::content).containsExactly(answer + 1);
    assertThat(partTurn.message()).isEqualTo("question 1");
    assertThat(partTurn.outcomes()).extracting(RunOutcome::text).containsExactly(null, answer + 2, answer + 3);
    assertThat(carried(part)).isEqualTo(carried(whole));
    assertThat(partTurn.outcomes()).extracting(run -> part.textOf(partTurn, run))
        .containsExactly(answer + 1, answer + 2, answer + 3);
  }

  /** The characters of text a view carries: its messages' and its turns'. */
  private static long carried(SessionView view) {
    long messages = view.messages().stream().mapToLong(message -> message.content().length()).sum();
    long turns = view.turns().stream().mapToLong(turn -> (turn.message() == null ? 0 : turn.message().length())
        + turn.outcomes().stream().mapToLong(run -> run.text() == null ? 0 : run.text().length()).sum()).sum();
    return messages + turns;
  }

  @Test
  void aSnapshotFromBeforeTheTotalsIsNumberedTotalledAndCut() {
    List<TurnRecord> everyTurn = new ArrayList<>();
    for (int turn = 1; turn <= 70; turn++) {
      everyTurn.add(session(1, "answer").turns().getFirst().numbered(0));
    }

    SessionState legacy = new SessionState("s", SessionStatus.OPEN, "t", null, null,
        JsonNodeFactory.instance.objectNode(), null, START, START, everyTurn, JsonNodeFactory.instance.objectNode(), null,
        null, null, 0, null, null, null, null);

    assertThat(legacy.totals().turns()).isEqualTo(70);
    assertThat(legacy.totals().completedTurns()).isEqualTo(70);
    assertThat(legacy.turns()).hasSize(SessionState.TURNS_KEPT);
    assertThat(legacy.turns()).extracting(TurnRecord::ordinal).startsWith(21).endsWith(70);
  }

  @Test
  void theNarrativeStateRemembersTheMostRecentlyCitedSources() {
    SessionState state = opened();
    for (int turn = 1; turn <= SessionState.CITED_SOURCES_KEPT + 20; turn++) {
      TurnOutcome cited = new TurnOutcome(List.of(run("a")), List.of(new Citation("d", "doc-" + turn + ".md", null, 0, 1)),
          1, List.of(), List.of(), 1);
      state = state.apply(accepted(turn))
          .apply(new ChatSession.TurnCompleted("turn-" + turn, "a-" + turn, cited, START.plusSeconds(2L * turn)));
      state = state.apply(new ChatSession.NarrativeStateMerged(state.narrativeDeltaAfter(cited), START));
    }

    List<String> sources = new ArrayList<>();
    state.narrativeState().path("cited_sources").forEach(node -> sources.add(node.asText()));
    assertThat(sources).hasSize(SessionState.CITED_SOURCES_KEPT).startsWith("doc-21.md").endsWith("doc-120.md");
  }

  static SessionState session(int turns, String answer) {
    SessionState state = opened();
    for (int turn = 1; turn <= turns; turn++) {
      state = state.apply(accepted(turn)).apply(completed(turn, answer + " " + turn));
    }
    return state;
  }

  private static SessionState opened() {
    return SessionState.empty("s")
        .apply(new ChatSession.SessionOpened("s", "t", null, null, JsonNodeFactory.instance.objectNode(), START));
  }

  private static ChatSession.TurnAccepted accepted(int turn) {
    return new ChatSession.TurnAccepted("turn-" + turn, "key-" + turn, "trace", "u-" + turn, "question " + turn,
        List.of(new RunSpec("r-" + turn, "offline", "m")), START.plusSeconds(2L * turn - 1));
  }

  private static ChatSession.TurnCompleted completed(int turn, String answer) {
    return new ChatSession.TurnCompleted("turn-" + turn, "a-" + turn, outcome(answer), START.plusSeconds(2L * turn));
  }

  private static TurnOutcome outcome(String answer) {
    return new TurnOutcome(List.of(run(answer)), List.of(), 0.5, List.of(),
        List.of(FrameMark.of(FrameMark.Kind.STARTED)), 1);
  }

  private static RunOutcome run(String answer) {
    return new RunOutcome("r", "p", "m", RunOutcome.Status.COMPLETED, answer, new Usage(10, 5, 0.01), 1, null, null);
  }

  private static String messageWith(SessionState state, String content) {
    return state.view(null, SessionState.MAX_PAGE_MESSAGES).messages().stream()
        .filter(message -> message.content().equals(content)).findFirst().orElseThrow().messageId();
  }
}
