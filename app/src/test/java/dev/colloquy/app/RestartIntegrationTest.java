package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.app.cli.Cli;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.mockllm.MockLlmServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Everything a session holds survives stopping the whole application and starting it again on the
 * same data, a second server cannot take a data directory in use, and {@code colloquy replay}
 * prints the journal and the state rebuilt from it.
 */
class RestartIntegrationTest {

  private static final Pattern JOURNAL_LINE = Pattern.compile("^(\\d+)\\s+(\\S+)\\s+(\\S+)\\b.*$");

  @TempDir
  static Path dataDir;

  private static MockLlmServer mock;
  private static String sessionId;
  /** The session as the first run of the application served it, just before it stopped. */
  private static JsonNode before;
  /** The second turn's stream as a client resuming it after its end got it before the stop. */
  private static List<SseEvent> replayedBefore;
  private static String secondTurnId;
  /** A session whose turn was still running when the application stopped, and the last event id its client saw. */
  private static String interruptedSessionId;
  private static String interruptedTurnId;
  private static long interruptedLastSeen;

  @BeforeAll
  static void runTwoTurnsThenStop() throws Exception {
    mock = TestColloquy.startMock();
    try (Colloquy first = TestColloquy.start(mock, dataDir)) {
      Api api = TestColloquy.api(first);
      JsonNode story = api.ingest("story.md", ("# The Story\n\n## The hero\n\nThe hero is Ada, a lighthouse keeper.\n\n"
          + "## The villain\n\nThe villain is the storm that never ends.\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertThat(story.path("status").asText()).isEqualTo("ready");
      sessionId = api.openSession();
      for (String message : List.of("Who is the hero?", "And the villain?")) {
        Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn(message));
        assertThat(turn.status()).as(turn.body()).isEqualTo(200);
        secondTurnId = turn.json().path("turn_id").asText();
      }
      before = api.session(sessionId);
      try (SseClient replay = api.joinTurn(sessionId, secondTurnId, 3L)) {
        replayedBefore = replay.readToEnd(Duration.ofSeconds(30));
      }
      leaveATurnRunning(api);
    } finally {
      mock.reconfigure(TestColloquy.fastMock());
    }
    assertThat(before.path("messages")).hasSize(4);
    assertThat(before.path("messages").get(1).path("citations").findValuesAsText("source")).contains("story.md");
    assertThat(before.path("narrative_state").path("completed_turns").asInt()).isEqualTo(2);
  }

  private static void leaveATurnRunning(Api api) throws Exception {
    mock.reconfigure(TestColloquy.slowMock());
    interruptedSessionId = api.openSession();
    try (SseClient stream = api.streamTurn(interruptedSessionId, Api.turn("Still talking when the lights go out"))) {
      List<SseEvent> seen = stream.readUntil(event -> event.event().equals("token"), Duration.ofSeconds(30));
      interruptedTurnId = seen.getFirst().text("turn_id");
      interruptedLastSeen = seen.getLast().number();
    }
  }

  @AfterAll
  static void stop() {
    if (mock != null) {
      mock.close();
    }
  }

  @Test
  void aRestartedApplicationServesTheSameSessionAndASecondOneCannotShareItsData() throws Exception {
    try (Colloquy restarted = TestColloquy.start(mock, dataDir)) {
      Api api = TestColloquy.api(restarted);

      JsonNode after = api.session(sessionId);

      assertThat(after.path("messages")).isEqualTo(before.path("messages"));
      assertThat(after.path("messages").findValues("citations")).hasSize(4)
          .isEqualTo(before.path("messages").findValues("citations"));
      assertThat(after.path("narrative_state")).isEqualTo(before.path("narrative_state"));
      assertThat(after.path("title").asText()).isEqualTo(before.path("title").asText());
      assertThat(after.path("created_at").asText()).isEqualTo(before.path("created_at").asText());
      assertThat(after.path("status").asText()).isEqualTo("open");
      try (SseClient replay = api.joinTurn(sessionId, secondTurnId, 3L)) {
        List<SseEvent> replayedAfter = replay.readToEnd(Duration.ofSeconds(30));
        assertThat(replayedAfter).isEqualTo(replayedBefore);
      }

      assertThatThrownBy(() -> Colloquy.start(TestColloquy.overrides(mock, dataDir, Map.of())).close())
          .hasMessageContaining("data directory")
          .hasMessageContaining("in use");

      assertThat(api.session(sessionId).path("messages")).isEqualTo(before.path("messages"));
      String other = api.openSession();
      Api.Response turn = api.post("/v1/sessions/" + other + "/turns", Api.turn("Still writing?"));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    }
  }

  /** A turn cut short by the stop ends as failed (INTERRUPTED) after the restart, and the session goes on. */
  @Test
  void aTurnRunningWhenTheApplicationStoppedIsReportedInterrupted() throws Exception {
    try (Colloquy restarted = TestColloquy.start(mock, dataDir)) {
      Api api = TestColloquy.api(restarted);

      List<SseEvent> rest;
      try (SseClient resumed = api.joinTurn(interruptedSessionId, interruptedTurnId, interruptedLastSeen)) {
        rest = resumed.readToEnd(Duration.ofSeconds(30));
      }

      assertThat(rest).hasSize(1);
      assertThat(rest.getFirst().event()).isEqualTo("turn.failed");
      assertThat(rest.getFirst().text("code")).isEqualTo("INTERRUPTED");
      assertThat(rest.getFirst().number()).isEqualTo(TurnFrame.LOST_LAYOUT_TERMINAL_ID);
      Api.Response next = api.post("/v1/sessions/" + interruptedSessionId + "/turns", Api.turn("Are you back?"));
      assertThat(next.status()).as(next.body()).isEqualTo(200);
      JsonNode messages = api.session(interruptedSessionId).path("messages");
      assertThat(messages).hasSize(3);
      assertThat(messages.get(0).path("turn_id").asText()).isEqualTo(interruptedTurnId);
      assertThat(messages.get(1).path("content").asText()).isEqualTo("Are you back?");
    }
  }

  @Test
  void replayReadsARunningServerThroughTheJournalEndpoint() throws Exception {
    try (Colloquy restarted = TestColloquy.start(mock, dataDir)) {
      Output fromServer = replay(sessionId, "--server", restarted.baseUrl(), "--api-key", TestColloquy.api(restarted).apiKey(), "--json");

      assertThat(fromServer.exitCode()).as(fromServer.err()).isZero();
      JsonNode journal = Api.JSON.readTree(fromServer.out());
      assertThat(texts(journal.path("events"), "type")).startsWith("SessionOpened")
          .containsSubsequence("TurnAccepted", "TurnCompleted", "TurnAccepted", "TurnCompleted");
      assertThat(journal.path("state").path("messages")).isEqualTo(before.path("messages"));
      assertThat(journal.path("state").path("narrative_state")).isEqualTo(before.path("narrative_state"));
    }
  }

  @Test
  void replayPrintsTheJournalAndTheStateRebuiltFromIt() throws Exception {
    Output text = replay(sessionId, "--data-dir", dataDir.toString());

    assertThat(text.exitCode()).as(text.err()).isZero();
    List<String> lines = text.out().lines().toList();
    List<Long> sequenceNrs = new ArrayList<>();
    List<String> types = new ArrayList<>();
    for (String line : lines.subList(0, lines.indexOf(stateHeader(lines)))) {
      Matcher journalLine = JOURNAL_LINE.matcher(line);
      if (journalLine.matches()) {
        sequenceNrs.add(Long.parseLong(journalLine.group(1)));
        types.add(journalLine.group(3));
      }
    }
    assertThat(sequenceNrs).containsExactlyElementsOf(LongStream.rangeClosed(1, sequenceNrs.size()).boxed().toList());
    assertThat(types.getFirst()).isEqualTo("SessionOpened");
    assertThat(types).containsSubsequence("SessionOpened", "TurnAccepted", "TurnCompleted", "TurnAccepted", "TurnCompleted");
    assertThat(stateHeader(lines)).isEqualTo("State at sequence number " + sequenceNrs.getLast() + ":");
    JsonNode textState = Api.JSON.readTree(String.join("\n", lines.subList(lines.indexOf(stateHeader(lines)) + 1, lines.size())));
    assertThat(textState.path("messages")).isEqualTo(before.path("messages"));
    assertThat(textState.path("narrative_state")).isEqualTo(before.path("narrative_state"));

    Output json = replay(sessionId, "--data-dir", dataDir.toString(), "--json");

    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode journal = Api.JSON.readTree(json.out());
    assertThat(journal.path("session_id").asText()).isEqualTo(sessionId);
    assertThat(texts(journal.path("events"), "type")).containsExactlyElementsOf(types);
    assertThat(texts(journal.path("events"), "sequence_nr")).containsExactlyElementsOf(sequenceNrs.stream().map(String::valueOf).toList());
    assertThat(journal.path("last_sequence_nr").asLong()).isEqualTo(sequenceNrs.getLast());
    assertThat(journal.path("state").path("messages")).isEqualTo(before.path("messages"));
    assertThat(journal.path("state").path("narrative_state")).isEqualTo(before.path("narrative_state"));

    Output untilTwo = replay(sessionId, "--data-dir", dataDir.toString(), "--json", "--until", "2");

    assertThat(untilTwo.exitCode()).as(untilTwo.err()).isZero();
    JsonNode early = Api.JSON.readTree(untilTwo.out());
    assertThat(texts(early.path("events"), "sequence_nr")).containsExactly("1", "2");
    assertThat(texts(early.path("events"), "type")).containsExactlyElementsOf(types.subList(0, 2));
    assertThat(early.path("last_sequence_nr").asLong()).isEqualTo(2);
    assertThat(early.path("state").path("session_id").asText()).isEqualTo(sessionId);
    assertThat(early.path("state").path("messages").size()).isLessThan(before.path("messages").size());
  }

  private record Output(int exitCode, String out, String err) {}

  private static Output replay(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> command = new ArrayList<>(List.of("replay"));
    command.addAll(List.of(args));
    int exitCode = new CommandLine(new Cli())
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(command.toArray(String[]::new));
    return new Output(exitCode, out.toString(), err.toString());
  }

  /** One field of every event, at the top level of each (events nest fields of the same names). */
  private static List<String> texts(JsonNode events, String field) {
    List<String> values = new ArrayList<>();
    events.forEach(event -> values.add(event.path(field).asText()));
    return values;
  }

  private static String stateHeader(List<String> lines) {
    return lines.stream().filter(line -> line.startsWith("State at sequence number")).findFirst()
        .orElseThrow(() -> new AssertionError("no state in the replay output:\n" + String.join("\n", lines)));
  }
}
