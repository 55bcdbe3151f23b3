package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read side follows the journal: the session list, the messages and the billing records are
 * what the sessions themselves say, each event counted once; the list pages most recently active
 * first and only ever shows the tenant's own, non-deleted sessions.
 */
class ReadSideIntegrationTest {

  private static final Duration PROJECTION_LAG = Duration.ofSeconds(20);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  private static ReadTables tables() {
    return new ReadTables(app.colloquy().database().dataSource());
  }

  @Test
  void sessionsMessagesAndBillingFollowTheJournal() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    List<JsonNode> turns = new ArrayList<>();
    for (String message : List.of("First question", "Second question")) {
      Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn(message));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
      turns.add(turn.json());
    }
    long promptTokens = turns.stream().mapToLong(t -> t.path("usage").path("prompt_tokens").asLong()).sum();
    long completionTokens = turns.stream().mapToLong(t -> t.path("usage").path("completion_tokens").asLong()).sum();
    String provider = turns.getFirst().at("/runs/0/provider").asText();
    ReadTables tables = tables();

    ReadTables.await("both turns are in the sessions table", PROJECTION_LAG,
        () -> Long.valueOf(completionTokens).equals(tables.session(sessionId).get("completion_tokens")));

    Map<String, Object> row = tables.session(sessionId);
    assertThat(row).containsEntry("tenant_id", "default").containsEntry("status", "open")
        .containsEntry("title", "First question").containsEntry("turn_count", 2)
        .containsEntry("prompt_tokens", promptTokens);
    assertThat(tables.rows("SELECT provider, model, prompt_tokens, completion_tokens FROM session_usage WHERE session_id = ?",
        sessionId)).containsExactly(Map.of("provider", provider, "model", TestColloquy.MODEL,
            "prompt_tokens", promptTokens, "completion_tokens", completionTokens));
    JsonNode session = api.session(sessionId);
    List<Map<String, Object>> messages = tables.rows(
        "SELECT message_id, role, content, turn_id FROM messages WHERE session_id = ? ORDER BY created_at, role DESC", sessionId);
    assertThat(messages).hasSize(4);
    for (int i = 0; i < 4; i++) {
      JsonNode expected = session.path("messages").get(i);
      assertThat(messages.get(i)).containsEntry("message_id", expected.path("message_id").asText())
          .containsEntry("role", expected.path("role").asText())
          .containsEntry("content", expected.path("content").asText())
          .containsEntry("turn_id", expected.path("turn_id").asText());
    }
    assertThat(tables.rows("SELECT kind FROM billing_events WHERE session_id = ?", sessionId))
        .containsExactly(Map.of("kind", "session_start"));

    Api.Response closed = api.post("/v1/sessions/" + sessionId + "/close", "{}");
    assertThat(closed.status()).as(closed.body()).isEqualTo(200);
    ReadTables.await("the close reaches the billing records", PROJECTION_LAG,
        () -> tables.rows("SELECT 1 FROM billing_events WHERE session_id = ? AND kind = 'session_end'", sessionId).size() == 1);

    Map<String, Object> end = tables.rows("SELECT * FROM billing_events WHERE session_id = ? AND kind = 'session_end'",
        sessionId).getFirst();
    assertThat(end).containsEntry("reason", "closed").containsEntry("turns", 2).containsEntry("completed_turns", 2)
        .containsEntry("prompt_tokens", promptTokens).containsEntry("completion_tokens", completionTokens)
        .containsEntry("duration_ms", closed.json().at("/summary/duration_ms").asLong());
    assertThat(Api.JSON.readTree((String) end.get("usage_by_model")).path(provider + "/" + TestColloquy.MODEL)
        .path("completion_tokens").asLong()).isEqualTo(completionTokens);
    assertThat(tables.session(sessionId)).containsEntry("status", "closed").containsEntry("close_reason", "closed");
  }

  @Test
  void everyEventIsCountedOnceAndTheOffsetsCommitWithTheRows() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Count me once"));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    ReadTables tables = tables();
    ReadTables.await("the turn is in the sessions table", PROJECTION_LAG,
        () -> Integer.valueOf(1).equals(tables.session(sessionId).get("turn_count"))
            && !tables.rows("SELECT 1 FROM messages WHERE session_id = ? AND role = 'assistant'", sessionId).isEmpty());

    String tag = tables.rows("""
        SELECT t.tag FROM event_tag t JOIN event_journal j ON j.ordering = t.event_id WHERE j.persistence_id = ?""",
        "ChatSession|" + sessionId).getFirst().get("tag").toString();
    assertThat(tag).matches("session-[0-3]");
    ReadTables.await("the offset of " + tag + " reaches the last event with that tag", PROJECTION_LAG, () -> {
      List<Map<String, Object>> offset = tables.rows(
          "SELECT current_offset FROM pekko_projection_offset_store WHERE projection_name = 'sessions' AND projection_key = ?", tag);
      Object last = tables.rows("SELECT max(event_id) AS last FROM event_tag WHERE tag = ?", tag).getFirst().get("last");
      return !offset.isEmpty() && offset.getFirst().get("current_offset").toString().equals(last.toString());
    });
    assertThat(tables.session(sessionId)).containsEntry("turn_count", 1)
        .containsEntry("completion_tokens", turn.json().path("usage").path("completion_tokens").asLong());
    assertThat(tables.rows("SELECT role FROM messages WHERE session_id = ? ORDER BY role", sessionId))
        .containsExactly(Map.of("role", "assistant"), Map.of("role", "user"));
  }

  /**
   * A turn's checkpoints and the narrative state merged after it are journaled for the session but carry no
   * tag: the projection's query never reads them.
   */
  @Test
  void aTurnsCheckpointsStayOutOfTheReadSidesTagStream() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Checkpoint me"));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    ReadTables tables = tables();
    ReadTables.await("the turn is in the sessions table", PROJECTION_LAG,
        () -> Integer.valueOf(1).equals(tables.session(sessionId).get("turn_count")));

    List<Map<String, Object>> events = tables.rows("""
        SELECT j.event_ser_manifest AS manifest, count(t.tag) AS tags FROM event_journal j
        LEFT JOIN event_tag t ON t.event_id = j.ordering WHERE j.persistence_id = ?
        GROUP BY j.ordering, j.event_ser_manifest""", "ChatSession|" + sessionId);
    java.util.function.Predicate<Map<String, Object>> notForTheReadSide = event ->
        event.get("manifest").toString().endsWith("TurnCheckpointed")
            || event.get("manifest").toString().endsWith("NarrativeStateMerged");
    assertThat(events).filteredOn(event -> event.get("manifest").toString().endsWith("TurnCheckpointed"))
        .isNotEmpty().allSatisfy(checkpoint -> assertThat(((Number) checkpoint.get("tags")).longValue()).isZero());
    assertThat(events).filteredOn(event -> event.get("manifest").toString().endsWith("NarrativeStateMerged"))
        .isNotEmpty().allSatisfy(merged -> assertThat(((Number) merged.get("tags")).longValue()).isZero());
    assertThat(events).filteredOn(notForTheReadSide.negate())
        .extracting(event -> ((Number) event.get("tags")).longValue()).isNotEmpty().containsOnly(1L);
  }

  /** PostgreSQL's text cannot hold NUL: refused, it stopped the projection for every session of its tag. */
  @Test
  void aMessageWithNulReachesTheReadTables() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Null\u0000byte"));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    assertThat(api.session(sessionId).at("/messages/0/content").asText()).isEqualTo("Null\u0000byte");
    ReadTables tables = tables();
    ReadTables.await("the message is in the read side", PROJECTION_LAG,
        () -> tables.rows("SELECT 1 FROM messages WHERE session_id = ?", sessionId).size() == 2);
    assertThat(tables.rows("SELECT content FROM messages WHERE session_id = ? AND role = 'user'", sessionId))
        .containsExactly(Map.of("content", "Null\ufffdbyte"));
    assertThat(tables.session(sessionId)).containsEntry("title", "Null\ufffdbyte");
  }

  @Test
  void aDeletedSessionLeavesTheListAndItsMessagesGo() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    assertThat(api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Forget me")).status()).isEqualTo(200);
    ReadTables tables = tables();
    ReadTables.await("the message is in the read side", PROJECTION_LAG,
        () -> tables.rows("SELECT 1 FROM messages WHERE session_id = ?", sessionId).size() == 2);

    assertThat(api.send("DELETE", "/v1/sessions/" + sessionId, null).status()).isEqualTo(204);

    ReadTables.await("the deletion reaches the read side", PROJECTION_LAG,
        () -> "deleted".equals(tables.session(sessionId).get("status")));
    assertThat(tables.rows("SELECT 1 FROM messages WHERE session_id = ?", sessionId)).isEmpty();
    assertThat(tables.session(sessionId).get("title")).isNull();
    assertThat(listedIds(api, "/v1/sessions?limit=100")).doesNotContain(sessionId);
    Map<String, Object> end = tables.rows(
        "SELECT * FROM billing_events WHERE session_id = ? AND kind = 'session_end'", sessionId).getFirst();
    assertThat(end).containsEntry("reason", "deleted").containsEntry("turns", 1)
        .containsEntry("completion_tokens", tables.session(sessionId).get("completion_tokens"));
    ReadTables.await("the journal is purged once the deletion is projected", PROJECTION_LAG,
        () -> tables.rows("SELECT 1 FROM event_journal WHERE persistence_id = ?", "ChatSession|" + sessionId).size() == 1);
  }

  @Test
  void aSessionDeletedRightAfterItsTurnIsStillBilled() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Quick one"));
    assertThat(turn.status()).isEqualTo(200);

    assertThat(api.send("DELETE", "/v1/sessions/" + sessionId, null).status()).isEqualTo(204);

    ReadTables tables = tables();
    ReadTables.await("the deleted session's billing records", PROJECTION_LAG,
        () -> tables.rows("SELECT 1 FROM billing_events WHERE session_id = ?", sessionId).size() == 2);
    Map<String, Object> end = tables.rows(
        "SELECT * FROM billing_events WHERE session_id = ? AND kind = 'session_end'", sessionId).getFirst();
    assertThat(end).containsEntry("reason", "deleted").containsEntry("turns", 1)
        .containsEntry("completion_tokens", turn.json().path("usage").path("completion_tokens").asLong());
  }

  @Test
  void theListPagesMostRecentlyActiveFirstAndFiltersByStatusAndTenant() throws Exception {
    Api api = app.api();
    ReadTables tables = tables();
    tables.execute("""
        INSERT INTO sessions (session_id, tenant_id, status, created_at, last_activity_at)
        VALUES ('someone-elses', 'other-tenant', 'open', now() + interval '1 day', now() + interval '1 day')""");
    List<String> opened = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      opened.add(api.openSession());
    }
    // Activity in a different order from opening: the second session becomes the most recent.
    assertThat(api.post("/v1/sessions/" + opened.get(1) + "/turns", Api.turn("Now I am the latest")).status())
        .isEqualTo(200);
    assertThat(api.post("/v1/sessions/" + opened.get(3) + "/close", "{}").status()).isEqualTo(200);
    ReadTables.await("every session and the turn are in the read side", PROJECTION_LAG,
        () -> opened.stream().allMatch(id -> !tablesSession(tables, id).isEmpty())
            && Integer.valueOf(1).equals(tables.session(opened.get(1)).get("turn_count"))
            && "closed".equals(tables.session(opened.get(3)).get("status")));

    List<String> all = new ArrayList<>();
    List<String> activity = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Api.Response page = api.get("/v1/sessions?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      JsonNode body = page.json();
      assertThat(body.path("sessions").size()).isBetween(1, 2);
      body.path("sessions").forEach(s -> {
        all.add(s.path("session_id").asText());
        activity.add(s.path("last_activity_at").asText());
      });
      cursor = body.path("next_cursor").isNull() ? null : body.path("next_cursor").asText();
      pages++;
    } while (cursor != null && pages < 50);

    assertThat(all).doesNotHaveDuplicates().contains(opened.toArray(String[]::new)).doesNotContain("someone-elses");
    assertThat(all.getFirst()).isEqualTo(opened.get(1));
    List<java.time.Instant> times = activity.stream().map(java.time.Instant::parse).toList();
    assertThat(times).isSortedAccordingTo(java.util.Comparator.reverseOrder());
    assertThat(all.indexOf(opened.get(4))).isLessThan(all.indexOf(opened.get(0)));

    assertThat(listedIds(api, "/v1/sessions?status=closed&limit=100")).contains(opened.get(3))
        .doesNotContain(opened.get(0), opened.get(1));
    assertThat(listedIds(api, "/v1/sessions?status=open&limit=100")).contains(opened.get(0), opened.get(1))
        .doesNotContain(opened.get(3), "someone-elses");
    Api.Response bad = api.get("/v1/sessions?limit=500");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().at("/error/code").asText()).isEqualTo("INVALID_QUERY");
  }

  @Test
  void theListSearchesTitlesIgnoringCaseAndPagesTheResults() throws Exception {
    Api api = app.api();
    ReadTables tables = tables();
    String word = "Lantern" + Long.toString(System.nanoTime(), 36);
    List<String> matching = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String sessionId = api.openSession();
      assertThat(api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Where is my " + word + " number " + i + "?"))
          .status()).isEqualTo(200);
      matching.add(sessionId);
    }
    String other = api.openSession();
    assertThat(api.send("PATCH", "/v1/sessions/" + other, "{\"title\":\"Nothing to see\"}").status()).isEqualTo(200);
    ReadTables.await("the titles are in the read side", PROJECTION_LAG,
        () -> matching.stream().allMatch(id -> tablesSession(tables, id).get("title") != null)
            && "Nothing to see".equals(tablesSession(tables, other).get("title")));

    Api.Response first = api.get("/v1/sessions?limit=2&q=" + word.toUpperCase());
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.json().path("sessions")).hasSize(2);
    Api.Response second = api.get("/v1/sessions?limit=2&q=%20" + word.toLowerCase() + "%20&cursor="
        + first.json().path("next_cursor").asText());
    assertThat(second.json().path("next_cursor").isNull()).isTrue();
    List<String> found = new ArrayList<>();
    for (Api.Response page : List.of(first, second)) {
      page.json().path("sessions").forEach(s -> {
        found.add(s.path("session_id").asText());
        assertThat(s.path("title").asText()).containsIgnoringCase(word);
      });
    }
    assertThat(found).containsExactly(matching.get(2), matching.get(1), matching.get(0));
    assertThat(listedIds(api, "/v1/sessions?q=nothing%20TO%20see&limit=100")).containsExactly(other);

    for (String bad : List.of("q=", "q=%20%20", "q=" + "x".repeat(201))) {
      Api.Response refused = api.get("/v1/sessions?" + bad);
      assertThat(refused.status()).as(bad).isEqualTo(400);
      assertThat(refused.json().at("/error/code").asText()).isEqualTo("INVALID_QUERY");
      assertThat(refused.json().at("/error/message").asText()).contains("q must be 1 to 200 characters");
      assertThat(refused.json().at("/error/trace_id").asText()).hasSize(32);
    }
  }

  @Test
  void aClosedSessionRefusesTurnsAndStillServesItsHistoryAndJournal() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    assertThat(api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Before the close")).status()).isEqualTo(200);
    assertThat(api.post("/v1/sessions/" + sessionId + "/close", "{}").status()).isEqualTo(200);

    Api.Response refused = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("After the close"));

    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.json().at("/error/code").asText()).isEqualTo("SESSION_CLOSED");
    JsonNode session = api.session(sessionId);
    assertThat(session.path("status").asText()).isEqualTo("closed");
    assertThat(session.path("close_reason").asText()).isEqualTo("closed");
    assertThat(session.path("messages")).hasSize(2);
    JsonNode journal = api.get("/v1/sessions/" + sessionId + "/journal").json();
    JsonNode last = journal.path("events").get(journal.path("events").size() - 1);
    assertThat(last.path("type").asText()).isEqualTo("SessionClosed");
    assertThat(last.at("/event/reason").asText()).isEqualTo("closed");
  }

  private static Map<String, Object> tablesSession(ReadTables tables, String id) {
    try {
      return tables.session(id);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> listedIds(Api api, String path) throws Exception {
    Api.Response list = api.get(path);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    assertThat(list.json().path("next_cursor").isNull()).isTrue();
    List<String> ids = new ArrayList<>();
    list.json().path("sessions").forEach(s -> ids.add(s.path("session_id").asText()));
    return ids;
  }
}
