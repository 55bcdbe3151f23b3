package dev.colloquy.http.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The seed dialects' translations of a turn's canonical frames, frame by frame: what each sends, in
 * which order, numbered so that a resumed stream continues exactly where the client stopped.
 */
class DialectFramesTest {

  private static final Citation CITATION = new Citation("d1", "story.md", "The hero", 3, 0.8, "c-1");
  private static final Gap GAP = new Gap("knowledge", "add a document");
  private static final RunOutcome RUN = new RunOutcome("r1", "openai-compatible", "mock", RunOutcome.Status.COMPLETED,
      "Hello there", new Usage(12, 2, 0), 40, null, null);

  /** A completed turn as the engine streams it: retrieval and gap before the tokens, a shadow run's tokens among them. */
  private static List<TurnFrame> completedTurn() {
    List<StreamEvent> events = List.of(
        new StreamEvent.Started(List.of("r1", "r2")),
        new StreamEvent.Retrieved(List.of(CITATION), 0.8),
        new StreamEvent.GapFound(GAP),
        new StreamEvent.Token("r1", "Hello"),
        new StreamEvent.Token("r2", "Other run"),
        new StreamEvent.Token("r1", " there"),
        new StreamEvent.RunCompleted(RUN),
        new TurnEnding.Completed("m1", "Hello there", 40, new Usage(12, 2, 0)));
    List<TurnFrame> frames = new ArrayList<>();
    for (StreamEvent event : events) {
      frames.add(new TurnFrame(frames.size() + 1, "s1", "t1", "trace-1", event));
    }
    return frames;
  }

  private static <T> List<T> all(List<TurnFrame> frames, TurnFrames.Translator<T> translator) {
    return TurnFrames.after(frames, translator, 0).stream().map(TurnFrames.Numbered::frame).toList();
  }

  @Test
  void theWritingRoomSendsTheTokensThenCitationsThenGapsThenDone() {
    List<WritingRoomFrames.Event> events = all(completedTurn(), new WritingRoomFrames("chat-1"));

    assertThat(events).containsExactly(
        new WritingRoomFrames.Event("token", new WritingRoomFrames.TokenData("Hello")),
        new WritingRoomFrames.Event("token", new WritingRoomFrames.TokenData(" there")),
        new WritingRoomFrames.Event("citation", new WritingRoomFrames.CitationData("story.md", 3)),
        new WritingRoomFrames.Event("gap", new WritingRoomFrames.GapData("knowledge", "add a document")),
        new WritingRoomFrames.Event("done", new WritingRoomFrames.DoneData("chat-1")));
  }

  @Test
  void aTurnThatFailsOrIsCancelledEndsWithAnErrorEventInEveryDialect() {
    List<TurnFrame> failed = List.of(new TurnFrame(1, "s1", "t1", "trace-1", new StreamEvent.Started(List.of("r1"))),
        new TurnFrame(2, "s1", "t1", "trace-1", new TurnEnding.Failed("ALL_RUNS_FAILED", "every run failed")));
    List<TurnFrame> cancelled = List.of(new TurnFrame(1, "s1", "t1", "trace-1", new StreamEvent.Started(List.of("r1"))),
        new TurnFrame(2, "s1", "t1", "trace-1", new TurnEnding.Cancelled("cancelled")));

    assertThat(all(failed, new WritingRoomFrames("chat-1"))).containsExactly(new WritingRoomFrames.Event("error",
        new WritingRoomFrames.ErrorData("ALL_RUNS_FAILED", "every run failed")));
    assertThat(all(cancelled, new EdgeFrames("req-1"))).containsExactly(new EdgeFrames.Event("error",
        new EdgeFrames.Problem("cancelled", "The turn was cancelled: cancelled", "trace-1")));
    assertThat(all(failed, new EdgeFrames("req-1"))).extracting(e -> ((EdgeFrames.Problem) e.data()).code())
        .containsExactly("all_runs_failed");
    assertThat(all(failed, new SupportFrames())).containsExactly(
        new SupportFrames.Failed(true, new SupportFrames.Problem("ALL_RUNS_FAILED", "every run failed")));
  }

  @Test
  void theEdgeNumbersItsDeltasStrictlyAndEndsWithUsageAndTheTraceId() {
    List<EdgeFrames.Event> events = all(completedTurn(), new EdgeFrames("req-1"));

    assertThat(events).containsExactly(
        new EdgeFrames.Event("chat.delta", new EdgeFrames.Delta("req-1", 1, "Hello", "trace-1")),
        new EdgeFrames.Event("chat.delta", new EdgeFrames.Delta("req-1", 2, " there", "trace-1")),
        new EdgeFrames.Event("chat.done", new EdgeFrames.Done("req-1", "m1", new EdgeFrames.Usage(12, 2), "trace-1", 40)));
  }

  @Test
  void theSupportStreamSendsDeltasThenDoneWithTheAnswersMetadata() {
    List<Object> events = all(completedTurn(), new SupportFrames());

    assertThat(events).containsExactly(
        new SupportFrames.Delta("Hello", false),
        new SupportFrames.Delta(" there", false),
        new SupportFrames.Done(true, new SupportAnswer("m1", 0.8,
            List.of(new SupportAnswer.Source("c-1", "story.md", "The hero")), false, null, 40)));
  }

  @Test
  void aTurnThatHandsItsSessionToAHumanSaysSoInTheSupportStreamsLastFrame() {
    List<TurnFrame> frames = new ArrayList<>();
    for (StreamEvent event : List.of(
        new StreamEvent.Started(List.of("r1")),
        new StreamEvent.IntentRouted(Intent.CONVERSATIONAL),
        new StreamEvent.Escalated(EscalationReason.USER_REQUESTED),
        new StreamEvent.Token("r1", "Connecting you"),
        new TurnEnding.Completed("m2", "Connecting you", 7, new Usage(0, 0, 0)))) {
      frames.add(new TurnFrame(frames.size() + 1, "s1", "t2", "trace-2", event));
    }

    assertThat(all(frames, new SupportFrames())).containsExactly(
        new SupportFrames.Delta("Connecting you", false),
        new SupportFrames.Done(true, new SupportAnswer("m2", null, List.of(), true, "user_requested", 7)));
    assertThat(all(completedTurn(), new SupportFrames()).getLast())
        .isEqualTo(new SupportFrames.Done(true, new SupportAnswer("m1", 0.8,
            List.of(new SupportAnswer.Source("c-1", "story.md", "The hero")), false, null, 40)));
  }

  @Test
  void aResumeGetsExactlyTheFramesAfterTheNumberLastSeenWhateverTheOrder() {
    List<TurnFrames.Numbered<WritingRoomFrames.Event>> all =
        TurnFrames.after(completedTurn(), new WritingRoomFrames("chat-1"), 0);
    List<TurnFrames.Numbered<WritingRoomFrames.Event>> rest =
        TurnFrames.after(completedTurn(), new WritingRoomFrames("chat-1"), 2);

    assertThat(all).extracting(TurnFrames.Numbered::number).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(rest).isEqualTo(all.subList(2, 5));
    assertThat(TurnFrames.after(completedTurn(), new WritingRoomFrames("chat-1"), 5)).isEmpty();
  }

  @Test
  void aTurnEventIdNamesTheTurnAndTheNumberAndAnythingElseIsRefused() {
    String turnId = "3f0c2a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6";

    assertThat(TurnEventId.parse(Optional.of(turnId + ":7"))).contains(new TurnEventId(turnId, 7));
    assertThat(TurnEventId.parse(Optional.empty())).isEmpty();
    for (String bad : List.of("7", turnId, turnId + ":-1", turnId + ":x", "not-a-turn:3")) {
      assertThatThrownBy(() -> TurnEventId.parse(Optional.of(bad))).as(bad)
          .isInstanceOfSatisfying(DialectRefusal.class, refusal -> assertThat(refusal.code()).isEqualTo("INVALID_LAST_EVENT_ID"));
    }
  }

  @Test
  void theEdgeTraceIdIsTheCallersWhenItIsOne() {
    assertThat(EdgeTraceIds.fromTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .contains("4bf92f35-77b3-4da6-a3ce-929d0e0e4736");
    assertThat(EdgeTraceIds.fromTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).isEmpty();
    assertThat(EdgeTraceIds.fromTraceparent("garbage")).isEmpty();
    assertThat(EdgeTraceIds.uuid("6F9619FF-8B86-D011-B42D-00C04FC964FF")).contains("6f9619ff-8b86-d011-b42d-00c04fc964ff");
    assertThat(EdgeTraceIds.uuid("request-17")).isEmpty();
  }

  @Test
  void edgeCodesAreLowerCaseAndEveryUnreadableRequestIsABadRequest() {
    assertThat(EdgeCodes.of("FIELD_REQUIRED")).isEqualTo("bad_request");
    assertThat(EdgeCodes.of("EMPTY_MESSAGE")).isEqualTo("bad_request");
    assertThat(EdgeCodes.of("SESSION_NOT_FOUND")).isEqualTo("session_not_found");
    assertThat(EdgeCodes.of("TURN_IN_PROGRESS")).isEqualTo("turn_in_progress");
  }

  @Test
  void aRequestIdThatIsNoUuidStillNamesOneTurn() {
    assertThat(EdgeRoutes.turnIdOf("r-1")).isEqualTo(EdgeRoutes.turnIdOf("r-1")).isNotEqualTo(EdgeRoutes.turnIdOf("r-2"));
    assertThat(EdgeRoutes.turnIdOf("3F0C2A4E-5B6D-4C7E-8F90-A1B2C3D4E5F6")).isEqualTo("3f0c2a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6");
  }

  /** A turn its first node streamed two tokens of, then lost: another node ran it again as run r9. */
  private static List<TurnFrame> restartedTurn(boolean tokensBeforeTheRestart) {
    List<StreamEvent> events = new ArrayList<>();
    events.add(new StreamEvent.Started(List.of("r1")));
    if (tokensBeforeTheRestart) {
      events.add(new StreamEvent.Token("r1", "Half an"));
      events.add(new StreamEvent.Token("r1", " answ"));
    }
    events.add(new StreamEvent.Restarted(List.of("r9"), "node_lost"));
    events.add(new StreamEvent.Token("r9", "A whole answer"));
    events.add(new TurnEnding.Completed("m1", "A whole answer", 40, new Usage(12, 2, 0)));
    List<TurnFrame> frames = new ArrayList<>();
    for (StreamEvent event : events) {
      frames.add(new TurnFrame(frames.size() + 1, "s1", "t1", "trace-1", event));
    }
    return frames;
  }

  @Test
  void aRestartAfterPartOfTheAnswerWasSentEndsEachDialectsStreamWithItsErrorAndNothingAfter() {
    List<TurnFrame> frames = restartedTurn(true);

    assertThat(all(frames, new WritingRoomFrames("chat-1"))).containsExactly(
        new WritingRoomFrames.Event("token", new WritingRoomFrames.TokenData("Half an")),
        new WritingRoomFrames.Event("token", new WritingRoomFrames.TokenData(" answ")),
        new WritingRoomFrames.Event("error", new WritingRoomFrames.ErrorData("TURN_RESTARTED",
            AnsweringRun.RESTARTED_MESSAGE)));
    List<EdgeFrames.Event> edge = all(frames, new EdgeFrames("req-1"));
    assertThat(edge).extracting(EdgeFrames.Event::name).containsExactly("chat.delta", "chat.delta", "error");
    assertThat(((EdgeFrames.Problem) edge.getLast().data()).code()).isEqualTo("turn_restarted");
    assertThat(edge.getLast().last()).isTrue();
    assertThat(all(frames, new SupportFrames())).containsExactly(new SupportFrames.Delta("Half an", false),
        new SupportFrames.Delta(" answ", false),
        new SupportFrames.Failed(true, new SupportFrames.Problem("TURN_RESTARTED", AnsweringRun.RESTARTED_MESSAGE)));
  }

  @Test
  void aRestartBeforeAnyOfTheAnswerWasSentIsInvisibleAndTheNewRunAnswers() {
    List<TurnFrame> frames = restartedTurn(false);

    assertThat(all(frames, new WritingRoomFrames("chat-1"))).containsExactly(
        new WritingRoomFrames.Event("token", new WritingRoomFrames.TokenData("A whole answer")),
        new WritingRoomFrames.Event("done", new WritingRoomFrames.DoneData("chat-1")));
    assertThat(all(frames, new EdgeFrames("req-1"))).extracting(EdgeFrames.Event::name)
        .containsExactly("chat.delta", "chat.done");
    assertThat(all(frames, new SupportFrames())).first().isEqualTo(new SupportFrames.Delta("A whole answer", false));
  }

  @Test
  void aResumedDialectStreamNumbersTheRestartErrorAsTheFirstStreamDid() {
    List<TurnFrame> frames = restartedTurn(true);

    List<TurnFrames.Numbered<WritingRoomFrames.Event>> resumed =
        TurnFrames.after(frames, new WritingRoomFrames("chat-1"), 2);

    assertThat(resumed).hasSize(1);
    assertThat(resumed.getFirst().number()).isEqualTo(3);
    assertThat(resumed.getFirst().frame().name()).isEqualTo("error");
  }

  private static List<String> openAi(List<TurnFrame> frames) {
    OpenAiChunks chunks = new OpenAiChunks("t1", 0, "mock", "openai-compatible", false);
    List<String> events = new ArrayList<>();
    frames.forEach(frame -> chunks.events(frame).forEach(bytes -> events.add(bytes.utf8String())));
    return events;
  }

  private static List<String> fanOut(List<TurnFrame> frames) {
    FanOutEvents translator = new FanOutEvents("t1", List.of(new dev.colloquy.engine.domain.RunSpec("r1",
        "openai-compatible", "mock")), java.time.Clock.systemUTC());
    List<String> events = new ArrayList<>();
    frames.forEach(frame -> translator.events(frame).forEach(bytes -> events.add(bytes.utf8String())));
    return events;
  }

  @Test
  void theOpenAiStreamEndsWithTurnRestartedWhenContentWasSentAndIgnoresARestartBeforeAny() {
    List<String> cut = openAi(restartedTurn(true));
    assertThat(String.join("", cut)).contains("Half an", " answ").doesNotContain("A whole answer", "[DONE]");
    assertThat(cut.getLast()).contains("\"code\":\"turn_restarted\"", "\"type\":\"server_error\"");

    List<String> whole = openAi(restartedTurn(false));
    assertThat(String.join("", whole)).contains("A whole answer", "[DONE]").doesNotContain("turn_restarted");
  }

  @Test
  void theFanOutStreamEndsTheLostRunAndStartsTheNewOneOfTheSameModel() {
    List<String> events = fanOut(restartedTurn(true));
    String all = String.join("", events);

    assertThat(all).contains("\"type\":\"run_error\"", "\"runId\":\"r1\"", "TURN_RESTARTED",
        "\"type\":\"run_started\"", "\"runId\":\"r9\"", "A whole answer");
    String restartedRun = events.stream().filter(event -> event.contains("run_started") && event.contains("r9"))
        .findFirst().orElseThrow();
    assertThat(restartedRun).contains("\"provider\":\"openai-compatible\"", "\"model\":\"mock\"");
    assertThat(all.indexOf("TURN_RESTARTED")).isLessThan(all.indexOf("A whole answer"));
  }
}
