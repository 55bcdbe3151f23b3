package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session longer than the turns it keeps in memory: its history reads back whole, page by page,
 * the newest pages from the session and the older ones from the read side, with nothing missing or
 * repeated; and a session takes no more turns than its limit.
 */
class LongSessionIntegrationTest {

  private static final int TURNS = 60;
  private static final Duration PROJECTED = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app =
      RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.session.max-turns", TURNS));

  private static String sessionId;
  private static final List<String> turnIds = new ArrayList<>();

  @BeforeAll
  static void aLongSession() throws Exception {
    sessionId = app.api().openSession();
    for (int turn = 1; turn <= TURNS; turn++) {
      Api.Response answered = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("Question " + turn));
      assertThat(answered.status()).as(answered.body()).isEqualTo(200);
      turnIds.add(answered.json().path("turn_id").asText());
    }
  }

  @Test
  void theNewestPageComesFirstAndPointsToThePageBeforeIt() throws Exception {
    JsonNode session = app.api().session(sessionId);

    assertThat(session.path("messages")).hasSize(100);
    assertThat(session.path("messages").get(0).path("content").asText()).isEqualTo("Question 11");
    assertThat(session.path("messages").get(99).path("turn_id").asText()).isEqualTo(turnIds.getLast());
    assertThat(session.path("next_before").asText()).isEqualTo(session.path("messages").get(0).path("message_id").asText());
  }

  @Test
  void everyMessageReadsBackOnceAndInOrderPageByPage() throws Exception {
    ReadTables.await("the whole history pages back", PROJECTED, () -> history(7).size() == 2 * TURNS);

    List<JsonNode> messages = history(7);
    for (int turn = 1; turn <= TURNS; turn++) {
      JsonNode question = messages.get(2 * (turn - 1));
      JsonNode answer = messages.get(2 * turn - 1);
      assertThat(question.path("content").asText()).isEqualTo("Question " + turn);
      assertThat(question.path("role").asText()).isEqualTo("user");
      assertThat(answer.path("role").asText()).isEqualTo("assistant");
      assertThat(answer.path("model").asText()).isEqualTo(TestColloquy.MODEL);
      assertThat(answer.path("run_id").asText()).isNotBlank();
      assertThat(List.of(question.path("turn_id").asText(), answer.path("turn_id").asText()))
          .containsOnly(turnIds.get(turn - 1));
    }
    assertThat(messages.stream().map(m -> m.path("message_id").asText()).distinct()).hasSize(2 * TURNS);
  }

  @Test
  void aSessionTakesNoTurnBeyondItsLimit() throws Exception {
    Api.Response refused = app.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("One more"));

    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.json().path("error").path("code").asText()).isEqualTo("TURN_LIMIT_REACHED");
    assertThat(refused.json().path("error").path("message").asText()).contains("60 turns");
    assertThat(app.api().session(sessionId).path("messages").get(99).path("turn_id").asText()).isEqualTo(turnIds.getLast());
  }

  @Test
  void aPageAskedForWronglyIsRefusedWithTheQueryError() throws Exception {
    for (String query : List.of("before=not-a-uuid", "before=" + UUID.randomUUID(), "limit=0", "limit=501", "limit=ten")) {
      Api.Response refused = app.api().get("/v1/sessions/" + sessionId + "?" + query);
      assertThat(refused.status()).as(query).isEqualTo(400);
      assertThat(refused.json().path("error").path("code").asText()).as(query).isEqualTo("INVALID_QUERY");
      assertThat(refused.json().path("error").path("trace_id").asText()).isNotBlank();
    }
  }

  /** The whole history, following next_before from the newest page of {@code limit} messages. */
  private static List<JsonNode> history(int limit) throws Exception {
    List<JsonNode> newestFirst = new ArrayList<>();
    String query = "?limit=" + limit;
    while (query != null) {
      Api.Response page = app.api().get("/v1/sessions/" + sessionId + query);
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      List<JsonNode> messages = new ArrayList<>();
      page.json().path("messages").forEach(messages::add);
      assertThat(messages).hasSizeLessThanOrEqualTo(limit);
      for (int i = messages.size() - 1; i >= 0; i--) {
        newestFirst.add(messages.get(i));
      }
      JsonNode next = page.json().path("next_before");
      query = next.isNull() ? null : "?limit=" + limit + "&before=" + next.asText();
    }
    return newestFirst.reversed();
  }
}
