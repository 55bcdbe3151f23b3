package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.turn.Transcript;
import dev.colloquy.mockllm.MockLlmSettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Forks and imports whose events are far larger than any Artery frame (256 KiB on the ordinary
 * channel, 4 MiB on the large one) work between two nodes: a fork on one node of a session of four
 * answers of about 1.9 MiB on the other inherits every turn whole, and that session's journal, just
 * under the 8 MiB body limit, imports onto the other node whole. A body past the limit is refused at
 * once, saving nothing.
 */
class TwoNodeForkImportIntegrationTest {

  /** 32 tokens of about 62 KiB: an answer of about 1.9 MiB, a turn's export (its checkpoints and its end) twice that. */
  private static final MockLlmSettings MODEL = TestColloquy.fastMock().withTokens(32)
      .withTokenText("z".repeat(62 * 1024) + "{i} ").withDelays(Duration.ZERO, Duration.ZERO);
  /** The server's body limit (pekko-http's max-content-length), which an import's body is held to. */
  private static final int BODY_LIMIT = 8 * 1024 * 1024;

  @RegisterExtension
  static final RunningCluster cluster = RunningCluster.of2(MODEL, Map.of());

  private static String original;
  private static List<String> answers;

  /** A session on node 1 of four turns answered with about 1.9 MiB each. */
  @BeforeAll
  static void aLargeSessionOnNode1() throws Exception {
    Api api = cluster.api(0);
    original = cluster.sessionPlacedOn(1, api::openSession);
    answers = new ArrayList<>();
    for (int turn = 1; turn <= 4; turn++) {
      Api.Response answered = api.post("/v1/sessions/" + original + "/turns", Api.turn("question " + turn));
      assertThat(answered.status()).as(answered.body()).isEqualTo(200);
      answers.add(answered.json().path("text").asText());
    }
    assertThat(answers.stream().mapToLong(TwoNodeForkImportIntegrationTest::utf8).sum())
        .as("the session's answers").isGreaterThan(7L * 1024 * 1024);
  }

  @Test
  void aForkOfALargeSessionOnTheOtherNodeInheritsEveryTurnWhole() throws Exception {
    Api api = cluster.api(0);
    // Forks go where sharding puts them: fork until one lands on node 0, so that the turns cross from node 1.
    List<JsonNode> replies = new ArrayList<>();
    String fork = cluster.sessionPlacedOn(0, () -> {
      Api.Response forked = api.post("/v1/sessions/" + original + "/fork", "{\"at_turn\": 5}");
      assertThat(forked.status()).as(forked.body()).isEqualTo(201);
      replies.add(forked.json());
      return forked.json().path("session_id").asText();
    });

    JsonNode reply = replies.getLast();
    assertThat(reply.path("forked_from").asText()).isEqualTo(original);
    assertThat(reply.path("inherited_turns").asInt()).isEqualTo(4);
    JsonNode inherited = exportOf(api, fork).get(1).path("event");
    assertThat(inherited.path("turns")).hasSize(4);
    for (int turn = 0; turn < 4; turn++) {
      assertThat(inherited.path("turns").get(turn).path("message").asText()).isEqualTo("question " + (turn + 1));
      assertThat(inherited.path("turns").get(turn).path("outcome").path("runs").get(0).path("text").asText())
          .as("turn " + (turn + 1) + "'s answer, whole").isEqualTo(answers.get(turn));
    }
    Api.Response next = api.post("/v1/sessions/" + fork + "/turns", Api.turn("question 5, in the fork"));
    assertThat(next.status()).as("the fork runs a turn of its own").isEqualTo(200);
    assertThat(cluster.hostedSessions(1)).as("the original stayed on node 1").contains(original);
  }

  /**
   * The large session's first two turns as exported, without their checkpoints (what the turns
   * streamed while they ran, which their endings repeat, and how often depends on timing): about
   * three quarters of the 8 MiB body limit, which a third turn would pass.
   */
  @Test
  void aJournalJustUnderTheBodyLimitImportsOntoTheOtherNodeWhole() throws Exception {
    Api api = cluster.api(0);
    List<JsonNode> kept = new ArrayList<>();
    int accepted = 0;
    for (JsonNode line : exportOf(api, original)) {
      String type = line.path("type").asText();
      accepted += type.equals("TurnAccepted") ? 1 : 0;
      if (accepted > 2) {
        break;
      }
      if (!type.equals("TurnCheckpointed")) {
        kept.add(line);
      }
    }
    StringBuilder journal = new StringBuilder();
    for (int i = 0; i < kept.size(); i++) {
      journal.append(((ObjectNode) kept.get(i).deepCopy()).put("sequence_nr", i + 1)).append('\n');
    }
    assertThat((long) utf8(journal.toString())).as("the journal's size").isGreaterThan(11L * BODY_LIMIT / 16)
        .isLessThan(BODY_LIMIT);

    String copy = cluster.sessionPlacedOn(1, () -> {
      Api.Response imported = api.post("/v1/sessions/import", journal.toString(), "Content-Type", "application/x-ndjson");
      assertThat(imported.status()).as(imported.body()).isEqualTo(201);
      assertThat(imported.json().path("events").asInt()).isEqualTo(kept.size());
      return imported.json().path("session_id").asText();
    });

    List<JsonNode> lines = exportOf(api, copy);
    assertThat(lines).hasSameSizeAs(kept);
    for (int i = 1; i < lines.size(); i++) {
      assertThat(lines.get(i).path("event")).as("event " + (i + 1)).isEqualTo(kept.get(i).path("event"));
    }
    assertThat(api.session(copy).path("messages")).extracting(m -> m.path("content").asText())
        .containsExactly("question 2", answers.get(1));
  }

  /**
   * A journal within the body limit whose texts pass the engine's own bounds (here one answer past a
   * turn's 2 MiB) would make a session whose views no node could send another: it is refused naming
   * the event and the bound, and nothing is journaled.
   */
  @Test
  void aJournalWithAnAnswerPastATurnsBudgetIsRefusedNamingItAndSavesNothing() throws Exception {
    Api api = cluster.api(0);
    List<JsonNode> lines = new ArrayList<>();
    for (JsonNode line : exportOf(api, original)) {
      String type = line.path("type").asText();
      if (type.equals("TurnCompleted")) {
        ObjectNode run = (ObjectNode) line.path("event").path("outcome").path("runs").get(0);
        run.put("text", "z".repeat((int) Transcript.ANSWER_BUDGET_BYTES + 1));
        lines.add(line);
        break;
      }
      if (!type.equals("TurnCheckpointed")) {
        lines.add(line);
      }
    }
    StringBuilder journal = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      journal.append(((ObjectNode) lines.get(i)).put("sequence_nr", i + 1)).append('\n');
    }
    int journaledBefore = cluster.journaledSessions();

    Api.Response refused = api.post("/v1/sessions/import", journal.toString(), "Content-Type", "application/x-ndjson");

    assertThat(refused.status()).as(refused.body()).isEqualTo(422);
    JsonNode error = refused.json().path("error");
    assertThat(error.path("code").asText()).isEqualTo("INVALID_JOURNAL");
    assertThat(error.path("message").asText()).contains("event " + lines.size() + " (TurnCompleted)")
        .contains(String.valueOf(Transcript.ANSWER_BUDGET_BYTES));
    assertThat(error.path("trace_id").asText()).isNotBlank();
    assertThat(cluster.journaledSessions()).as("no session was journaled").isEqualTo(journaledBefore);
  }

  /**
   * A body past the limit is answered 413 as soon as its length is known, whichever node would have
   * held the session, and no session is created. (The request sends {@code Expect: 100-continue}, as
   * curl does with a large body, so the early answer reaches the client.)
   */
  @Test
  void anImportPastTheBodyLimitIsRefusedWithTheLimitAndSavesNothing() throws Exception {
    Api api = cluster.api(0);
    int journaledBefore = cluster.journaledSessions();
    String line = "{\"sequence_nr\": 1, \"written_at\": \"2026-11-25T00:00:00Z\", \"type\": \"SessionOpened\","
        + " \"event\": {\"padding\": \"" + "p".repeat(BODY_LIMIT) + "\"}}";

    HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.node(0).baseUrl() + "/v1/sessions/import"))
        .timeout(Duration.ofSeconds(60)).expectContinue(true)
        .header("Authorization", "Bearer " + api.apiKey()).header("Content-Type", "application/x-ndjson")
        .POST(HttpRequest.BodyPublishers.ofString(line)).build();
    HttpResponse<String> refused;
    try (HttpClient client = HttpClient.newHttpClient()) {
      refused = client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(413);
    JsonNode error = Api.JSON.readTree(refused.body()).path("error");
    assertThat(error.path("code").asText()).isEqualTo("REQUEST_TOO_LARGE");
    assertThat(error.path("message").asText()).contains(String.valueOf(BODY_LIMIT));
    assertThat(error.path("trace_id").asText()).isNotBlank();
    assertThat(cluster.journaledSessions()).as("no session was journaled").isEqualTo(journaledBefore);
  }

  private static List<JsonNode> exportOf(Api api, String sessionId) throws Exception {
    Api.Response export = api.get("/v1/sessions/" + sessionId + "/export");
    assertThat(export.status()).as(export.body()).isEqualTo(200);
    List<JsonNode> lines = new ArrayList<>();
    for (String line : export.body().lines().toList()) {
      lines.add(Api.JSON.readTree(line));
    }
    return lines;
  }

  private static long utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }
}
