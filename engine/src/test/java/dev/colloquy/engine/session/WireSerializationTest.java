package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.FrameMark;
import dev.colloquy.engine.domain.Gap;
import dev.colloquy.engine.domain.RollingSummary;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.TurnAttempt;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.domain.TurnProgress;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfiguration;
import dev.colloquy.engine.turn.Transcript;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.model.ChatMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.SerializationTestKit;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Everything that crosses nodes or reaches the journal goes through Pekko's serialization (Jackson
 * CBOR) and comes back equal: every reply, every stream element, and every event with full payloads.
 */
class WireSerializationTest {

  private static ActorTestKit testKit;
  private static SerializationTestKit serialization;

  private static final RunOutcome RUN = new RunOutcome("r1", "openai-compatible", "m", RunOutcome.Status.COMPLETED,
      "text \r\n with breaks", new Usage(10, 20, 0.0015), 123, null, null);
  private static final RunOutcome FAILED = new RunOutcome("r2", "offline", "offline", RunOutcome.Status.FAILED, "",
      new Usage(40, 3, 0.0001, true), 4, "MODEL_TIMEOUT", "late");
  private static final Citation CITATION = new Citation("d1", "policy.md", "Refunds", 2, 0.87, "c1");
  private static final Gap GAP = new Gap("knowledge", "add a document");
  private static final TurnOutcome OUTCOME = new TurnOutcome(List.of(RUN, FAILED), List.of(CITATION), 0.66,
      List.of(GAP), List.of(FrameMark.of(FrameMark.Kind.STARTED), FrameMark.tokens(0, 5, 3)), 321);
  private static final TurnOutcome AGENT_OUTCOME = new TurnOutcome(List.of(RUN), List.of(CITATION), 0.3, List.of(GAP),
      List.of(FrameMark.of(FrameMark.Kind.INTENT), FrameMark.of(FrameMark.Kind.ESCALATION)), 12,
      new AgentTrace(Intent.DOMAIN_QUERY, AgentTrace.BY_MODEL, EscalationReason.LOW_RETRIEVAL_CONFIDENCE, false,
          List.of("m-1"), List.of("prefers email"), List.of(new AgentCall(AgentCall.ROUTING, "openai-compatible", "m",
              new Usage(60, 1, 0.00002))), "fr"));
  private static final StreamEvent.ToolCalled CALLED =
      new StreamEvent.ToolCalled("r1", "call_1", "knowledge_retrieval", "{\"query\":\"refunds\"}");
  private static final StreamEvent.ToolResulted RESULT =
      new StreamEvent.ToolResulted("r1", "call_1", "knowledge_retrieval", false, "{\"error\":\"timed_out\"}", 1000);
  private static final TurnOutcome TOOL_OUTCOME = new TurnOutcome(List.of(RUN), List.of(), 0, List.of(),
      List.of(FrameMark.of(FrameMark.Kind.STARTED), FrameMark.ofRun(FrameMark.Kind.TOOL_CALLED, 0),
          FrameMark.ofRun(FrameMark.Kind.TOOL_RESULT, 0), FrameMark.tokens(0, 4, 15),
          FrameMark.ofRun(FrameMark.Kind.RUN_COMPLETED, 0)), 40,
      new AgentTrace(Intent.DOMAIN_QUERY, AgentTrace.OFFLINE, null, false, List.of(), List.of()), List.of(CALLED, RESULT));
  private static final Instant AT = Instant.parse("2026-11-21T10:15:30.123456789Z");

  @BeforeAll
  static void start() {
    // With remoting, actor refs (and so stream refs) serialize with the node's address, as between nodes.
    testKit = ActorTestKit.create(ConfigFactory.parseString("""
        pekko.actor.provider = cluster
        pekko.remote.artery.canonical { hostname = "127.0.0.1", port = 0 }
        """).withFallback(ConfigFactory.load()));
    serialization = new SerializationTestKit(testKit.system());
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static void roundTrips(Object message) {
    assertThat(serialization.verifySerialization(message, true)).isEqualTo(message);
  }

  @Test
  void everyStreamElementRoundTrips() {
    List<StreamEvent> events = List.of(
        new StreamEvent.Started(List.of("r1", "r2")),
        new StreamEvent.Retrieved(List.of(CITATION), 0.66),
        new StreamEvent.Token("r1", "\u2028 \r\n\u0000 token"),
        new StreamEvent.GapFound(GAP),
        new StreamEvent.RunCompleted(RUN),
        new StreamEvent.RunFailed("r2", "gemini", "gemini-2.0-flash", "MODEL_TIMEOUT", "late"),
        new StreamEvent.Restarted(List.of("r3"), "node_lost"),
        new StreamEvent.IntentRouted(Intent.OUT_OF_SCOPE),
        new StreamEvent.IntentRouted(Intent.DOMAIN_QUERY, "fr"),
        new StreamEvent.Escalated(EscalationReason.USER_REQUESTED),
        CALLED,
        RESULT,
        new TurnEnding.Completed("m1", "text", 321, new Usage(1, 2, 0.1)),
        new TurnEnding.Failed("ALL_RUNS_FAILED", "all failed"),
        new TurnEnding.Cancelled("disconnected"));
    for (StreamEvent event : events) {
      roundTrips(new TurnFrame(7, "s1", "t1", "trace", event));
    }
  }

  @Test
  void everyReplyRoundTrips() {
    SessionState state = SessionState.empty("s1")
        .apply(new ChatSession.SessionOpened("s1", "default", null, "p", JsonNodeFactory.instance.objectNode().put("a", 1), AT))
        .apply(new ChatSession.TurnAccepted("t1", "k", "trace", "u1", "hi", List.of(new RunSpec("r1", "openai-compatible", "m")), AT))
        .apply(new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT));
    roundTrips(new ChatSession.SessionReply(state.view()));
    roundTrips(state.apply(new ChatSession.HistorySummarized("t1", new RollingSummary("Said hi.", 2, "offline"), AT)));
    roundTrips(new ChatSession.SessionReply(state.apply(new ChatSession.SessionClosed("idle", state.summarize(AT), AT)).view()));
    roundTrips(new ChatSession.TurnReply("t1", "trace", true, true, 0, null,
        List.of(new RunSpec("r1", "openai", "gpt-4o-mini"))));
    roundTrips(new ChatSession.Done());
    roundTrips(new ChatSession.Rejected(ChatSession.TURN_IN_PROGRESS, "busy", "t1"));
    roundTrips(new ChatSession.SessionReply(state.apply(new ChatSession.SessionEscalated("t1",
        EscalationReason.MAX_TURNS_EXCEEDED, AT)).view()));
  }

  @Test
  void aTurnReplyLeavingItsNodeCarriesItsStreamAsASourceRefThatStillStreamsOnTheOtherSide() throws Exception {
    List<TurnFrame> frames = List.of(
        new TurnFrame(1, "s1", "t1", "trace", new StreamEvent.Token("r1", "one")),
        new TurnFrame(2, "s1", "t1", "trace", new TurnEnding.Cancelled("cancelled")));
    ChatSession.TurnReply reply = new ChatSession.TurnReply("t1", "trace", true, true, 2,
        TurnFeed.replay(testKit.system(), frames), List.of(new RunSpec("r1", "openai-compatible", "m")));

    ChatSession.TurnReply received = (ChatSession.TurnReply) serialization.verifySerialization(reply, false);

    assertThat(received).usingRecursiveComparison().ignoringFields("frames").isEqualTo(reply);
    assertThat(received.frames().getSource().runWith(Sink.seq(), testKit.system()).toCompletableFuture()
        .get(10, TimeUnit.SECONDS)).isEqualTo(frames);
    assertThat(serialization.verifySerialization(received, true)).isEqualTo(received);
  }

  /**
   * Events far larger than a remote message may be cross as a stream ref of parts: read on the other
   * side they are the events sent, whole and in order, and the reference passes on unchanged.
   */
  @Test
  void openingEventsLeavingTheirNodeStreamAcrossInPartsAndArriveWhole() throws Exception {
    String large = "ü".repeat(3 * OpeningEvents.PART_BYTES / 2);
    List<ChatSession.Event> events = List.of(
        new ChatSession.SessionOpened("s0", "acme", "u1", "p", JsonNodeFactory.instance.objectNode(), AT),
        new ChatSession.TurnAccepted("t1", "k", "trace", "u1", large, List.of(new RunSpec("r1", "p", "m")), AT),
        new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT));
    var replyTo = testKit.<ChatSession.SessionAnswer>createTestProbe().getRef();
    var sent = new ChatSession.Import("acme", "u1", OpeningEvents.of(testKit.system(), events), replyTo);

    var received = (ChatSession.Import) serialization.verifySerialization(sent, false);
    var passedOn = (ChatSession.Import) serialization.verifySerialization(received, true);

    assertThat(passedOn.events()).isEqualTo(received.events());
    assertThat(eventsOf(passedOn.events())).isEqualTo(events);
  }

  private static List<ChatSession.Event> eventsOf(OpeningEvents events) throws Exception {
    return events.events(testKit.system()).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A turn's outcome as journaled before token marks were grouped: one {@code [TOKEN, run, length]} per token. */
  @JsonFormat(shape = JsonFormat.Shape.ARRAY)
  record FrameMarkPerToken(FrameMark.Kind kind, int run, int length) {}

  record OutcomeWithAMarkPerToken(List<RunOutcome> runs, List<Citation> citations, double confidence, List<Gap> gaps,
      List<FrameMarkPerToken> frames, long latencyMs) implements CborSerializable {}

  @Test
  void anOutcomeJournaledWithAMarkPerTokenReadsGroupedAndReplaysTheSameFrames() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(TurnOutcome.class);
    RunOutcome run = new RunOutcome("r1", "openai-compatible", "m", RunOutcome.Status.COMPLETED, "Hello world",
        Usage.NONE, 5, null, null);
    byte[] journaled = serializer.toBinary(new OutcomeWithAMarkPerToken(List.of(run), List.of(), 0, List.of(),
        List.of(new FrameMarkPerToken(FrameMark.Kind.STARTED, -1, 0), new FrameMarkPerToken(FrameMark.Kind.TOKEN, 0, 5),
            new FrameMarkPerToken(FrameMark.Kind.TOKEN, 0, 1), new FrameMarkPerToken(FrameMark.Kind.TOKEN, 0, 5),
            new FrameMarkPerToken(FrameMark.Kind.RUN_COMPLETED, 0, 0)), 5));

    TurnOutcome read = (TurnOutcome) serializer.fromBinary(journaled, serializer.manifest(TurnOutcome.nothing()));

    assertThat(read.frames()).containsExactly(FrameMark.of(FrameMark.Kind.STARTED), FrameMark.tokens(0, 5, 1, 5),
        FrameMark.ofRun(FrameMark.Kind.RUN_COMPLETED, 0));
    List<TurnFrame> replay = Transcript.replay("s1", "t1", "trace", List.of(new RunSpec("r1", "openai-compatible", "m")), read,
        TurnEnding.Completed.of("m1", read), 0);
    assertThat(replay).extracting(TurnFrame::id).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(replay.subList(1, 4)).extracting(TurnFrame::event).containsExactly(
        new StreamEvent.Token("r1", "Hello"), new StreamEvent.Token("r1", " "), new StreamEvent.Token("r1", "world"));
  }

  @Test
  void aGroupedLayoutTakesAboutAByteATokenInTheJournal() {
    int[] lengths = new int[1000];
    java.util.Arrays.fill(lengths, 4);
    TurnOutcome outcome = new TurnOutcome(List.of(RUN), List.of(), 0, List.of(),
        List.of(FrameMark.of(FrameMark.Kind.STARTED), FrameMark.tokens(0, lengths)), 1);
    byte[] bytes = SerializationExtension.get(testKit.system()).serialize(outcome).get();
    assertThat(bytes.length).isLessThan(1300);
  }

  @Test
  void everyEventRoundTripsWithItsFullPayload() {
    List<ChatSession.Event> events = List.of(
        new ChatSession.SessionOpened("s1", "default", null, null, JsonNodeFactory.instance.objectNode(), AT),
        new ChatSession.SessionOpened("s1", "default", "u1", "Be brief.", JsonNodeFactory.instance.objectNode(), AT,
            null, List.of(ChatMessage.user("earlier"), ChatMessage.assistant("an answer"))),
        new ChatSession.SessionOpened("s1", "default", "u1", null, JsonNodeFactory.instance.objectNode(), AT, "purplefrog",
            List.of()),
        new ChatSession.SessionOpened("s1", "default", "u1", null, JsonNodeFactory.instance.objectNode(), AT, "purplefrog",
            List.of(ChatMessage.user("earlier"))),
        new ChatSession.SessionRenamed("title", AT),
        new ChatSession.TurnAccepted("t1", null, "trace", "u1", "hi", List.of(new RunSpec("r1", "openai-compatible", "m")), AT),
        new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT),
        new ChatSession.TurnFailed("t1", "INTERRUPTED", "stopped", TurnOutcome.nothing(), AT),
        new ChatSession.TurnCancelled("t1", "cancelled", OUTCOME, AT),
        new ChatSession.NarrativeStateMerged(JsonNodeFactory.instance.objectNode().put("completed_turns", 3), AT),
        new ChatSession.TurnCheckpointed("t1", new TurnProgress.Checkpoint(
            List.of(FrameMark.tokens(0, 5), FrameMark.ofRun(FrameMark.Kind.RUN_FAILED, 1)),
            List.of("text ", ""), List.of(FAILED), List.of(CITATION), 0.66, List.of(GAP), 42, null, null, List.of()), AT),
        new ChatSession.TurnCheckpointed("t1", new TurnProgress.Checkpoint(
            List.of(FrameMark.of(FrameMark.Kind.INTENT), FrameMark.of(FrameMark.Kind.ESCALATION)), List.of(""),
            List.of(), List.of(), 0, List.of(), 44, Intent.DOMAIN_QUERY, EscalationReason.USER_REQUESTED, List.of()), AT),
        new ChatSession.TurnCheckpointed("t1", new TurnProgress.Checkpoint(List.of(FrameMark.of(FrameMark.Kind.INTENT)),
            List.of(""), List.of(), List.of(), 0, List.of(), 45, Intent.CONVERSATIONAL, null, List.of(), "en",
            List.of(new AgentCall(AgentCall.ROUTING, "openai-compatible", "m", new Usage(12, 3, 0.001)))), AT),
        new ChatSession.TurnRestarted("t1", new TurnAttempt(List.of(new RunSpec("r1", "p", "m")),
            new TurnOutcome(List.of(RUN), List.of(), 0, List.of(), List.of(FrameMark.of(FrameMark.Kind.STARTED),
                FrameMark.of(FrameMark.Kind.LOST)), 0), 43, "node_lost"), List.of(new RunSpec("r9", "p", "m")), AT),
        new ChatSession.SessionClosed("idle", new SessionSummary(1, 1, Map.of("p/m", new Usage(1, 2, 0.5)), AT, AT, 0), AT),
        new ChatSession.SessionDeleted(AT, new SessionSummary(2, 1, Map.of("p/m", new Usage(1, 2, 0.5)), AT, AT, 0)),
        new ChatSession.TurnCompleted("t2", "m2", AGENT_OUTCOME, AT),
        new ChatSession.SessionEscalated("t2", EscalationReason.LOW_RETRIEVAL_CONFIDENCE, AT),
        new ChatSession.SessionHandedBack(AT),
        new ChatSession.HistorySummarized("t2", new RollingSummary("The user asked \r\n about refunds.", 6, "model"),
            AT),
        new ChatSession.TurnCompleted("t3", "m3", TOOL_OUTCOME, AT));
    events.forEach(WireSerializationTest::roundTrips);
  }

  @Test
  void aSnapshotRoundTripsAndStaysTheSameSizeHoweverLongTheSession() {
    SessionState hundred = LongSessionStateTest.session(100, "An answer of a few words");
    SessionState tenThousand = LongSessionStateTest.session(10_000, "An answer of a few words");

    roundTrips(hundred);
    roundTrips(tenThousand);
    int small = SerializationExtension.get(testKit.system()).serialize(hundred).get().length;
    int large = SerializationExtension.get(testKit.system()).serialize(tenThousand).get().length;
    assertThat(large).as("a 10,000-turn session's snapshot against a 100-turn one's (%d bytes)", small)
        .isLessThan(small + 1_000);
  }

  /** A session state as snapshotted before it kept totals and numbered its turns. */
  record StateWithoutTotals(String sessionId, SessionStatus status, String tenantId, String userId, String persona,
      JsonNode metadata, String title, Instant createdAt, Instant updatedAt, List<TurnWithoutNumber> turns,
      JsonNode narrativeState, String closeReason, SessionSummary summary) implements CborSerializable {}

  record TurnWithoutNumber(String turnId, String idempotencyKey, String traceId, String userMessageId, String message,
      List<RunSpec> runs, Instant acceptedAt, TurnStatus status, Instant endedAt, String assistantMessageId,
      String endCode, String endMessage, TurnOutcome outcome) implements CborSerializable {}

  @Test
  void aSnapshotTakenBeforeTheStateKeptTotalsRecoversWithThemAndKeepsOnlyTheNewestTurns() throws Exception {
    List<TurnWithoutNumber> turns = new ArrayList<>();
    for (int i = 1; i <= 60; i++) {
      turns.add(new TurnWithoutNumber("t" + i, "k" + i, "trace", "u" + i, "hi " + i, List.of(new RunSpec("r1", "offline", "m")),
          AT, TurnStatus.COMPLETED, AT, "m" + i, null, null, OUTCOME));
    }
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(SessionState.class);
    byte[] snapshot = serializer.toBinary(new StateWithoutTotals("s1", SessionStatus.OPEN, "acme", null, null,
        JsonNodeFactory.instance.objectNode(), "title", AT, AT, turns, JsonNodeFactory.instance.objectNode(), null, null));

    SessionState read = (SessionState) serializer.fromBinary(snapshot, serializer.manifest(SessionState.empty("s1")));

    assertThat(read.totals().turns()).isEqualTo(60);
    assertThat(read.totals().completedTurns()).isEqualTo(60);
    assertThat(read.turns()).hasSize(SessionState.TURNS_KEPT);
    assertThat(read.turns()).extracting(TurnRecord::ordinal).startsWith(11).endsWith(60);
    assertThat(read.summarize(AT).usageByModel().values().stream().mapToLong(Usage::completionTokens).sum())
        .isEqualTo(60 * OUTCOME.usage().completionTokens());
  }

  @Test
  void aTurnWithToolCallsReplaysItsCallsAndResultsWhereTheyWere() {
    List<TurnFrame> replay = Transcript.replay("s1", "t1", "trace", List.of(new RunSpec("r1", "openai-compatible", "m")), TOOL_OUTCOME,
        TurnEnding.Completed.of("m1", TOOL_OUTCOME), 0);

    assertThat(replay).extracting(TurnFrame::event).startsWith(new StreamEvent.Started(List.of("r1")), CALLED, RESULT,
        new StreamEvent.Token("r1", "text"), new StreamEvent.Token("r1", " \r\n with breaks"));
    assertThat(replay).extracting(TurnFrame::id).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
  }

  /** A turn's outcome as journaled before tools: the fields it had then. */
  record OutcomeBeforeTools(List<RunOutcome> runs, List<Citation> citations, double confidence, List<Gap> gaps,
      List<FrameMark> frames, long latencyMs, AgentTrace agent) {}

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("TurnCompleted")
  record TurnCompletedBeforeTools(String turnId, String messageId, OutcomeBeforeTools outcome, Instant at)
      implements CborSerializable {}

  @Test
  void aTurnJournaledBeforeToolsReadsWithoutAny() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.TurnCompleted.class);
    byte[] journaled = serializer.toBinary(new TurnCompletedBeforeTools("t2", "m2", new OutcomeBeforeTools(
        AGENT_OUTCOME.runs(), AGENT_OUTCOME.citations(), AGENT_OUTCOME.confidence(), AGENT_OUTCOME.gaps(),
        AGENT_OUTCOME.frames(), AGENT_OUTCOME.latencyMs(), AGENT_OUTCOME.agent()), AT));

    Object read = serializer.fromBinary(journaled, serializer.manifest(new ChatSession.TurnCompleted("t2", "m2",
        AGENT_OUTCOME, AT)));

    assertThat(read).isEqualTo(new ChatSession.TurnCompleted("t2", "m2", AGENT_OUTCOME, AT));
    assertThat(((ChatSession.TurnCompleted) read).outcome().tools()).isEmpty();
  }

  /** A deletion as journaled before it carried the session's summary: its type id and its one field. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("SessionDeleted")
  record SessionDeletedWithoutSummary(Instant at) implements CborSerializable {}

  /** A snapshot taken before turns had checkpoints and restarts: its turns read with neither. */
  @Test
  void aSnapshotTakenBeforeCheckpointsReadsWithoutProgressOrEarlierAttempts() throws Exception {
    SessionState state = SessionState.empty("s1")
        .apply(new ChatSession.SessionOpened("s1", "default", null, "p", JsonNodeFactory.instance.objectNode(), AT))
        .apply(new ChatSession.TurnAccepted("t1", "k", "trace", "u1", "hi", List.of(new RunSpec("r1", "p", "m")), AT))
        .apply(new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT));
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(SessionState.class);
    com.fasterxml.jackson.databind.ObjectMapper cbor =
        new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.cbor.CBORFactory());
    JsonNode tree = cbor.readTree(serializer.toBinary(state));
    tree.path("turns").forEach(turn -> ((com.fasterxml.jackson.databind.node.ObjectNode) turn).remove(
        List.of("progress", "attempts")));
    assertThat(tree.path("turns").get(0).has("attempts")).isFalse();

    SessionState read = (SessionState) serializer.fromBinary(cbor.writeValueAsBytes(tree), serializer.manifest(state));

    assertThat(read).isEqualTo(state);
    assertThat(read.turn("t1").orElseThrow().attempts()).isEmpty();
  }

  @Test
  void aDeletionJournaledBeforeItCarriedTheSummaryStillReadsWithoutOne() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.SessionDeleted.class);
    byte[] journaled = serializer.toBinary(new SessionDeletedWithoutSummary(AT));
    String manifest = serializer.manifest(new ChatSession.SessionDeleted(AT, null));

    Object read = serializer.fromBinary(journaled, manifest);

    assertThat(read).isEqualTo(new ChatSession.SessionDeleted(AT, null));
  }

  /** An opening as journaled before sessions had users: its type id and its fields then. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("SessionOpened")
  record SessionOpenedWithoutUser(String sessionId, String tenantId, String persona, JsonNode metadata, Instant at)
      implements CborSerializable {}

  @Test
  void anOpeningJournaledBeforeSessionsHadUsersReadsAsASessionOfTheWholeTenant() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.SessionOpened.class);
    var metadata = JsonNodeFactory.instance.objectNode().put("a", 1);
    byte[] journaled = serializer.toBinary(new SessionOpenedWithoutUser("s1", "acme", "p", metadata, AT));
    String manifest = serializer.manifest(new ChatSession.SessionOpened("s1", "acme", null, "p", metadata, AT));

    Object read = serializer.fromBinary(journaled, manifest);

    assertThat(read).isEqualTo(new ChatSession.SessionOpened("s1", "acme", null, "p", metadata, AT));
    SessionState recovered = SessionState.empty("s1").apply((ChatSession.Event) read);
    assertThat(recovered.foreignTo("acme", null)).isFalse();
    assertThat(recovered.foreignTo("acme", "u1")).isTrue();
    assertThat(recovered.history(20)).isEmpty();
  }

  /** A run as journaled before runs named their provider. */
  record RunSpecWithoutProvider(String runId, String model) {}

  /** An accepted turn as journaled before runs named their provider: its type id and its fields then. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("TurnAccepted")
  record TurnAcceptedWithoutProviders(String turnId, String idempotencyKey, String traceId, String userMessageId,
      String message, List<RunSpecWithoutProvider> runs, Instant at) implements CborSerializable {}

  @Test
  void aTurnJournaledBeforeRunsNamedTheirProviderReadsWithoutOne() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.TurnAccepted.class);
    byte[] journaled = serializer.toBinary(new TurnAcceptedWithoutProviders("t1", null, "trace", "u1", "hi",
        List.of(new RunSpecWithoutProvider("r1", "gpt-main")), AT));
    ChatSession.TurnAccepted now = new ChatSession.TurnAccepted("t1", null, "trace", "u1", "hi",
        List.of(new RunSpec("r1", null, "gpt-main")), AT);

    assertThat(serializer.fromBinary(journaled, serializer.manifest(now))).isEqualTo(now);
  }

  /** Usage as journaled before it said whether it was estimated. */
  record UsageWithoutEstimate(long promptTokens, long completionTokens, double costUsd) implements CborSerializable {}

  @Test
  void usageJournaledBeforeItCouldBeEstimatedReadsAsReported() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(Usage.class);
    byte[] journaled = serializer.toBinary(new UsageWithoutEstimate(10, 20, 0.5));

    Object read = serializer.fromBinary(journaled, serializer.manifest(new Usage(10, 20, 0.5)));

    assertThat(read).isEqualTo(new Usage(10, 20, 0.5, false));
    roundTrips(new Usage(10, 20, 0.5, true));
  }

  /** A turn's outcome as journaled before the agent decided anything: the fields it had then. */
  record OutcomeBeforeTheAgent(List<RunOutcome> runs, List<Citation> citations, double confidence, List<Gap> gaps,
      List<FrameMark> frames, long latencyMs) {}

  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("TurnCompleted")
  record TurnCompletedBeforeTheAgent(String turnId, String messageId, OutcomeBeforeTheAgent outcome, Instant at)
      implements CborSerializable {}

  @Test
  void aTurnJournaledBeforeTheAgentReadsWithoutItsDecisions() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.TurnCompleted.class);
    byte[] journaled = serializer.toBinary(new TurnCompletedBeforeTheAgent("t1", "m1", new OutcomeBeforeTheAgent(
        OUTCOME.runs(), OUTCOME.citations(), OUTCOME.confidence(), OUTCOME.gaps(), OUTCOME.frames(),
        OUTCOME.latencyMs()), AT));
    String manifest = serializer.manifest(new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT));

    Object read = serializer.fromBinary(journaled, manifest);

    assertThat(read).isEqualTo(new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT));
    assertThat(((ChatSession.TurnCompleted) read).outcome().agent()).isNull();
  }

  /** The agent's trace as journaled before its own model calls were billed and languages detected: the fields it had then. */
  record TraceBeforeCalls(Intent intent, String intentSource, EscalationReason escalation, boolean handoff,
      List<String> recalled, List<String> memories) implements CborSerializable {}

  @Test
  void aTraceJournaledBeforeTheAgentsCallsWereBilledReadsWithNone() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(AgentTrace.class);
    byte[] journaled = serializer.toBinary(new TraceBeforeCalls(Intent.CONVERSATIONAL, AgentTrace.BY_MODEL, null, false,
        List.of("m-1"), List.of()));

    AgentTrace read = (AgentTrace) serializer.fromBinary(journaled, serializer.manifest(AgentTrace.handedOff()));

    assertThat(read).isEqualTo(new AgentTrace(Intent.CONVERSATIONAL, AgentTrace.BY_MODEL, null, false, List.of("m-1"),
        List.of()));
    assertThat(read.calls()).isEmpty();
    assertThat(read.language()).isNull();
    assertThat(read.callUsage()).isEqualTo(Usage.NONE);
    assertThat(read.gapsBy()).as("journaled before gap detection was recorded").isNull();
    assertThat(read.characterTraits()).isNull();
  }

  @Test
  void aTraceKeepsWhoDetectedTheGapsAndTheCharacterTraits() {
    var traits = JsonNodeFactory.instance.objectNode().put("eye colour", "green").put("home", "Lisbon");
    AgentTrace trace = new AgentTrace(Intent.DOMAIN_QUERY, AgentTrace.BY_MODEL, null, false, List.of(), List.of(),
        List.of(new AgentCall(AgentCall.GAP_DETECTION, "mock", "mock-small", new Usage(40, 12, 0))), "en",
        AgentTrace.BY_MODEL, traits);

    serialization.verifySerialization(trace, true);
    serialization.verifySerialization(new AgentTrace(Intent.DOMAIN_QUERY, AgentTrace.OFFLINE, null, false, List.of(),
        List.of(), List.of(), null, AgentTrace.BY_RULE, null), true);
  }

  /** An opening as journaled before chats had characters. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("SessionOpened")
  record SessionOpenedWithoutCharacter(String sessionId, String tenantId, String userId, String persona,
      JsonNode metadata, Instant at) implements CborSerializable {}

  /** A citation as journaled before citations named their chunk. */
  record CitationWithoutChunk(String documentId, String source, String section, int chunkIndex, double score)
      implements CborSerializable {}

  @Test
  void anOpeningJournaledBeforeChatsHadCharactersReadsWithoutOne() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.SessionOpened.class);
    var metadata = JsonNodeFactory.instance.objectNode();
    byte[] journaled = serializer.toBinary(new SessionOpenedWithoutCharacter("s1", "acme", "u1", "p", metadata, AT));
    String manifest = serializer.manifest(new ChatSession.SessionOpened("s1", "acme", "u1", "p", metadata, AT));

    Object read = serializer.fromBinary(journaled, manifest);

    assertThat(read).isEqualTo(new ChatSession.SessionOpened("s1", "acme", "u1", "p", metadata, AT, null, List.of()));
    assertThat(SessionState.empty("s1").apply((ChatSession.Event) read).characterId()).isNull();
  }

  /** An opening as journaled when chats had characters but sessions could not yet start from a conversation. */
  @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
  @JsonTypeName("SessionOpened")
  record SessionOpenedWithoutContext(String sessionId, String tenantId, String userId, String persona,
      JsonNode metadata, Instant at, String characterId) implements CborSerializable {}

  @Test
  void anOpeningJournaledWithACharacterButNoContextKeepsItsCharacterAndStartsFromNothing() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(ChatSession.SessionOpened.class);
    var metadata = JsonNodeFactory.instance.objectNode();
    byte[] journaled = serializer.toBinary(new SessionOpenedWithoutContext("s1", "acme", "u1", "p", metadata, AT,
        "purplefrog"));
    String manifest = serializer.manifest(new ChatSession.SessionOpened("s1", "acme", "u1", "p", metadata, AT));

    Object read = serializer.fromBinary(journaled, manifest);

    assertThat(read).isEqualTo(new ChatSession.SessionOpened("s1", "acme", "u1", "p", metadata, AT, "purplefrog",
        List.of()));
    SessionState recovered = SessionState.empty("s1").apply((ChatSession.Event) read);
    assertThat(recovered.characterId()).isEqualTo("purplefrog");
    assertThat(recovered.history(20)).isEmpty();
  }

  @Test
  void aCitationJournaledBeforeItNamedItsChunkReadsWithoutOne() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(Citation.class);
    byte[] journaled = serializer.toBinary(new CitationWithoutChunk("d1", "policy.md", "Refunds", 2, 0.87));

    Object read = serializer.fromBinary(journaled, serializer.manifest(CITATION));

    assertThat(read).isEqualTo(new Citation("d1", "policy.md", "Refunds", 2, 0.87, null));
  }

  @Test
  void aRenameCommandRoundTripsInsideItsTenantScope() {
    var replyTo = testKit.<ChatSession.SessionAnswer>createTestProbe().getRef();
    roundTrips(new ChatSession.ForTenant("acme", "u1", new ChatSession.Rename("Fears", replyTo)));
    roundTrips(new ChatSession.Open("acme", "u1", null, JsonNodeFactory.instance.objectNode(), "purplefrog", List.of(),
        replyTo));
    roundTrips(new ChatSession.Open("acme", "u1", null, JsonNodeFactory.instance.objectNode(), null,
        List.of(ChatMessage.user("earlier"), ChatMessage.assistant("an answer")), replyTo));
  }

  @Test
  void theForkAndImportCommandsRepliesAndEventRoundTrip() throws Exception {
    var replyTo = testKit.<ChatSession.SessionAnswer>createTestProbe().getRef();
    SessionState state = SessionState.empty("s1")
        .apply(new ChatSession.SessionOpened("s1", "acme", "u1", "p", JsonNodeFactory.instance.objectNode(), AT))
        .apply(new ChatSession.TurnAccepted("t1", "k", "trace", "um", "hi", List.of(new RunSpec("r1", "p", "m")), AT))
        .apply(new ChatSession.TurnCompleted("t1", "m1", OUTCOME, AT));
    var forked = new ChatSession.SessionForked("s0", 2, "A title", state.turns(),
        JsonNodeFactory.instance.objectNode().put("completed_turns", 1), AT);
    var opened = new ChatSession.SessionOpened("s0", "acme", "u1", "p", JsonNodeFactory.instance.objectNode(), AT, "c",
        List.of());
    roundTrips(forked);
    roundTrips(new ChatSession.ForTenant("acme", "u1", new ChatSession.GetForkSource(2,
        testKit.<ChatSession.ForkAnswer>createTestProbe().getRef())));
    var source = new ChatSession.ForkSource("s0", 2, 1, "again?", OpeningEvents.of(testKit.system(), List.of(opened, forked)));
    var sourceRead = (ChatSession.ForkSource) serialization.verifySerialization(source, false);
    assertThat(sourceRead).usingRecursiveComparison().ignoringFields("opening").isEqualTo(source);
    assertThat(eventsOf(sourceRead.opening())).containsExactly(opened, forked);
    var fork = new ChatSession.OpenFork(new ChatSession.ForkSource("s0", 2, 1, null,
        OpeningEvents.of(testKit.system(), List.of(opened, forked))), replyTo);
    assertThat(eventsOf(((ChatSession.OpenFork) serialization.verifySerialization(fork, false)).source().opening()))
        .containsExactly(opened, forked);
    var imported = new ChatSession.Import("acme", null, OpeningEvents.of(testKit.system(), List.of(opened, forked)), replyTo);
    var importRead = (ChatSession.Import) serialization.verifySerialization(imported, false);
    assertThat(importRead).usingRecursiveComparison().ignoringFields("events").isEqualTo(imported);
    assertThat(eventsOf(importRead.events())).containsExactly(opened, forked);
    roundTrips(state.apply(forked));
  }

  @Test
  void anOpeningForAUserRoundTripsWithItsUser() {
    roundTrips(new ChatSession.SessionOpened("s1", "acme", "u1", "p", JsonNodeFactory.instance.objectNode(), AT));
  }

  @Test
  void aJournaledEndingReadsBackAsTheEndingTheSupervisorReported() {
    List<TurnEnding> endings = List.of(TurnEnding.Completed.of("m1", OUTCOME),
        new TurnEnding.Failed("ALL_RUNS_FAILED", "all failed"), TurnEnding.Failed.interrupted("stopped"),
        new TurnEnding.Cancelled("disconnected"));
    for (TurnEnding ending : endings) {
      ChatSession.TurnEnded journaled = ChatSession.TurnEnded.of("t1", ending, OUTCOME, AT);
      ChatSession.TurnEnded read = (ChatSession.TurnEnded) serialization.verifySerialization(journaled, true);
      assertThat(read.ending()).isEqualTo(ending);
    }
  }

  @Test
  void aConfigChangeKeepsItsDataWebhookAndOneJournaledBeforeItHadNoneReadsWithoutOne() throws Exception {
    SerializerWithStringManifest serializer = (SerializerWithStringManifest)
        SerializationExtension.get(testKit.system()).serializerFor(TenantConfiguration.ConfigChanged.class);
    TenantConfig change = TenantConfig.NO_CHANGE.overlay(new TenantConfig("Aria", null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        "https://crm.example/lookup"));
    TenantConfiguration.ConfigChanged changed = new TenantConfiguration.ConfigChanged(change, AT);
    String manifest = serializer.manifest(changed);
    byte[] bytes = serializer.toBinary(changed);

    assertThat(serializer.fromBinary(bytes, manifest)).isEqualTo(changed);

    var cbor = new com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper();
    var journaledBefore = (com.fasterxml.jackson.databind.node.ObjectNode) cbor.readTree(bytes);
    ((com.fasterxml.jackson.databind.node.ObjectNode) journaledBefore.get("change")).remove("dataWebhookUrl");
    var read = (TenantConfiguration.ConfigChanged) serializer.fromBinary(cbor.writeValueAsBytes(journaledBefore),
        manifest);
    assertThat(read.change().personaName()).isEqualTo("Aria");
    assertThat(read.change().dataWebhookUrl()).isNull();
    assertThat(read.change().hasDataWebhook()).isFalse();
  }
}
