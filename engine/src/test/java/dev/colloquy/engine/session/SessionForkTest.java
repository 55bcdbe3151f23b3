package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.Usage;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Forks and imports at the entity: a fork inherits the turns before its point as they ended (and is
 * not billed for them), the original is untouched, a bad point is refused; an imported journal opens
 * a new session for the importer, and one that is not a session's history is refused before anything
 * is written.
 */
class SessionForkTest {

  private static final Instant AT = Instant.parse("2026-11-20T10:00:00Z");

  private static ActorTestKit testKit;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
  }

  private static EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> session(String id) {
    return EventSourcedBehaviorTestKit.create(testKit.system(),
        ChatSession.create(id, TestEngine.offline(""), null));
  }

  /** An open session of user u1 with {@code turns} completed offline turns. */
  private static EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> withTurns(int turns) {
    var original = session(UUID.randomUUID().toString());
    original.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Open("tenant-a", "u1", "persona",
        JsonNodeFactory.instance.objectNode(), r));
    for (int i = 1; i <= turns; i++) {
      String message = "question " + i;
      var started = original.<ChatSession.TurnAnswer>runCommand(r ->
          new ChatSession.StartTurn(message, null, null, List.of(), "trace", r));
      TurnStreamProbe.read(testKit, started.reply()).untilTerminal();
    }
    return original;
  }

  private static ChatSession.ForkAnswer forkSource(
      EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> original, int atTurn) {
    return original.<ChatSession.ForkAnswer>runCommand(r -> new ChatSession.GetForkSource(atTurn, r)).reply();
  }

  @Test
  void aForkInheritsTheTurnsBeforeItsPointAndTheOriginalIsUntouched() {
    var original = withTurns(3);
    SessionState before = original.getState();

    var source = (ChatSession.ForkSource) forkSource(original, 3);
    assertThat(original.getState()).isEqualTo(before);
    assertThat(source.atTurnMessage()).isEqualTo("question 3");

    var fork = session(UUID.randomUUID().toString());
    var opened = fork.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.OpenFork(source, r));

    assertThat(opened.events()).extracting(Object::getClass)
        .containsExactly(ChatSession.SessionOpened.class, ChatSession.SessionForked.class);
    SessionState forked = fork.getState();
    assertThat(forked.status()).isEqualTo(SessionStatus.OPEN);
    assertThat(forked.tenantId()).isEqualTo("tenant-a");
    assertThat(forked.userId()).isEqualTo("u1");
    assertThat(forked.turns()).extracting(TurnRecord::message).containsExactly("question 1", "question 2");
    assertThat(forked.turns()).isEqualTo(before.turns().subList(0, 2));
    assertThat(forked.narrativeState().path("completed_turns").asInt()).isEqualTo(2);
    assertThat(forked.title()).isEqualTo(before.title());

    var turn = fork.<ChatSession.TurnAnswer>runCommand(r ->
        new ChatSession.StartTurn("question 3, asked again", null, null, List.of(), "trace", r));
    TurnStreamProbe.read(testKit, turn.reply()).untilTerminal();
    assertThat(fork.getState().turns()).hasSize(3);
    assertThat(fork.getState().turns().getLast().status()).isEqualTo(TurnStatus.COMPLETED);
    var closed = fork.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Close("closed", r));
    SessionSummary summary = ((ChatSession.SessionClosed) closed.event()).summary();
    assertThat(summary.turns()).as("inherited turns are billed to the original only").isEqualTo(1);
    assertThat(original.getState()).isEqualTo(before);
  }

  @Test
  void aForkAtTheFirstTurnOrAfterTheLastIsAllowedAndAnyOtherPointIsRefusedWithTheRange() {
    var original = withTurns(2);

    assertThat(((ChatSession.ForkSource) forkSource(original, 1)).inheritedTurns()).isZero();
    var whole = (ChatSession.ForkSource) forkSource(original, 3);
    assertThat(whole.inheritedTurns()).isEqualTo(2);
    assertThat(whole.atTurnMessage()).isNull();
    for (int bad : new int[] {0, -1, 4, 99}) {
      var refused = (ChatSession.Rejected) forkSource(original, bad);
      assertThat(refused.code()).isEqualTo("INVALID_FORK_POINT");
      assertThat(refused.message()).contains("from 1 to 3");
    }
  }

  @Test
  void aForeignCallerIsAnsweredAsForAMissingSession() {
    var original = withTurns(1);

    var foreign = original.<ChatSession.ForkAnswer>runCommand(r ->
        new ChatSession.ForTenant("tenant-b", null, new ChatSession.GetForkSource(1, r))).reply();
    var otherUser = original.<ChatSession.ForkAnswer>runCommand(r ->
        new ChatSession.ForTenant("tenant-a", "u2", new ChatSession.GetForkSource(1, r))).reply();

    assertThat(((ChatSession.Rejected) foreign).code()).isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(((ChatSession.Rejected) otherUser).code()).isEqualTo(ChatSession.SESSION_NOT_FOUND);
    assertThat(((ChatSession.Rejected) forkSource(session(UUID.randomUUID().toString()), 1)).code())
        .isEqualTo(ChatSession.SESSION_NOT_FOUND);
  }

  @Test
  void anImportedJournalOpensANewSessionOfTheImporterAndAPendingTurnEndsInterrupted() {
    var original = withTurns(2);
    List<ChatSession.Event> events = new java.util.ArrayList<>(original.persistenceTestKit()
        .persistedInStorage(ChatSession.persistenceId(original.getState().sessionId()).id()).stream()
        .map(ChatSession.Event.class::cast).toList());
    events.add(new ChatSession.TurnAccepted("t-pending", null, "trace", "um", "cut short",
        List.of(new RunSpec("r", "offline", "offline")), AT));
    assertThat(ImportedJournal.problem(events)).isEmpty();
    String importedId = UUID.randomUUID().toString();
    var imported = session(importedId);

    var reply = imported.<ChatSession.SessionAnswer>runCommand(r -> new ChatSession.Import("tenant-z", "v1",
        OpeningEvents.of(testKit.system(), events), r));

    assertThat(reply.reply()).isInstanceOf(ChatSession.SessionReply.class);
    SessionState state = imported.getState();
    assertThat(state.sessionId()).isEqualTo(importedId);
    assertThat(state.tenantId()).isEqualTo("tenant-z");
    assertThat(state.userId()).isEqualTo("v1");
    assertThat(state.turns()).hasSize(3);
    assertThat(state.turns().getLast().status()).isEqualTo(TurnStatus.FAILED);
    assertThat(state.turns().getLast().endCode()).isEqualTo("INTERRUPTED");
  }

  @Test
  void aJournalThatIsNotOneSessionsHistoryIsRefusedNamingTheEventAtFault() {
    var opened = new ChatSession.SessionOpened("s", "t", null, null, JsonNodeFactory.instance.objectNode(), AT);
    var accepted = new ChatSession.TurnAccepted("t1", null, "trace", "um", "hi", List.of(new RunSpec("r", "offline", "m")), AT);
    var completed = new ChatSession.TurnCompleted("t1", "m1", TurnOutcome.nothing(), AT);

    assertThat(ImportedJournal.problem(List.of())).contains("The journal has no events");
    assertThat(ImportedJournal.problem(List.of(accepted))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 1 (TurnAccepted)").contains("must open the session"));
    assertThat(ImportedJournal.problem(List.of(opened, completed))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 2 (TurnCompleted)").contains("turn t1 was not accepted"));
    assertThat(ImportedJournal.problem(List.of(opened, accepted, completed, completed))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 4"));
    assertThat(ImportedJournal.problem(List.of(opened, opened))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 2 (SessionOpened)"));
    assertThat(ImportedJournal.problem(List.of(opened, new ChatSession.SessionDeleted(AT, null))))
        .hasValueSatisfying(problem -> assertThat(problem).contains("deleted"));
    assertThat(ImportedJournal.problem(List.of(opened, accepted, completed))).isEmpty();
  }

  /**
   * An imported journal keeps the sizes of the engine's own sessions, on which every message that
   * crosses nodes is reckoned: a text past one is refused naming the event and the bound; at it, accepted.
   */
  @Test
  void aJournalWhoseTextsPassTheEnginesOwnBoundsIsRefusedNamingTheEventAndTheBound() {
    var opened = new ChatSession.SessionOpened("s", "t", null, null, JsonNodeFactory.instance.objectNode(), AT);
    var accepted = new ChatSession.TurnAccepted("t1", null, "trace", "um", "hi",
        List.of(new RunSpec("r1", "offline", "m"), new RunSpec("r2", "offline", "m")), AT);
    int half = (int) (ImportedBounds.ANSWER_BYTES / 2);
    var atTheBudget = new ChatSession.TurnCompleted("t1", "m1", answered("a".repeat(half), "b".repeat(half)), AT);
    var pastTheBudget = new ChatSession.TurnCompleted("t1", "m1", answered("a".repeat(half), "b".repeat(half + 1)), AT);

    assertThat(ImportedJournal.problem(List.of(opened, accepted, atTheBudget))).isEmpty();
    assertThat(ImportedJournal.problem(List.of(opened, accepted, pastTheBudget))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 3 (TurnCompleted)").contains("at most " + ImportedBounds.ANSWER_BYTES + " bytes"));
    var longMessage = new ChatSession.TurnAccepted("t1", null, "trace", "um", "m".repeat(ImportedBounds.MESSAGE_BYTES + 1),
        List.of(new RunSpec("r1", "offline", "m")), AT);
    assertThat(ImportedJournal.problem(List.of(opened, longMessage))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 2 (TurnAccepted)").contains(String.valueOf(ImportedBounds.MESSAGE_BYTES)));
    var persona = new ChatSession.SessionOpened("s", "t", null, "p".repeat(ImportedBounds.PERSONA_CHARS + 1),
        JsonNodeFactory.instance.objectNode(), AT);
    assertThat(ImportedJournal.problem(List.of(persona))).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 1 (SessionOpened)").contains("persona"));
    var metadata = new ChatSession.SessionOpened("s", "t", null, null,
        JsonNodeFactory.instance.objectNode().put("notes", "n".repeat(ImportedBounds.METADATA_BYTES)), AT);
    assertThat(ImportedJournal.problem(List.of(metadata))).hasValueSatisfying(problem ->
        assertThat(problem).contains("metadata is at most " + ImportedBounds.METADATA_BYTES));
    List<ChatSession.Event> growing = new java.util.ArrayList<>(List.of(opened));
    for (int i = 0; i < 5; i++) {
      growing.add(new ChatSession.NarrativeStateMerged(JsonNodeFactory.instance.objectNode()
          .put("key" + i, "v".repeat(ImportedBounds.STATE_BYTES / 4)), AT));
    }
    assertThat(ImportedJournal.problem(growing)).hasValueSatisfying(problem ->
        assertThat(problem).startsWith("event 5 (NarrativeStateMerged)").contains("narrative state grows past"));
  }

  private static TurnOutcome answered(String... texts) {
    List<RunOutcome> runs = new java.util.ArrayList<>();
    for (int i = 0; i < texts.length; i++) {
      runs.add(new RunOutcome("r" + (i + 1), "offline", "m", RunOutcome.Status.COMPLETED, texts[i], Usage.NONE, 1, null, null));
    }
    return new TurnOutcome(runs, List.of(), 0, List.of(), List.of(), 1);
  }
}
