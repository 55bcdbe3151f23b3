package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnAttempt;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.session.ChatSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The projection's handler fed journal events, on a real (embedded) PostgreSQL with the read tables
 * a rebuild creates: the rows of sessions, messages, session_usage and billing_events that a session
 * list, a transcript and a bill are read from.
 */
class ReadModelUpdatesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SESSION = "s-1";
  private static final Instant OPENED = Instant.parse("2026-11-21T10:00:00Z");
  private static final Instant ACCEPTED = OPENED.plusSeconds(5);
  private static final Instant ENDED = OPENED.plusSeconds(8);
  private static final Instant CLOSED = OPENED.plusSeconds(60);
  private static final Usage MAIN_USAGE = new Usage(120, 30, 0.002);
  private static final Usage SHADOW_USAGE = new Usage(120, 10, 0.0005, true);

  @RegisterExtension
  static final ReadSideDatabase database = new ReadSideDatabase();

  @Test
  void anOpenedSessionIsListedAndItsStartIsBilled() throws SQLException {
    apply(opened());

    assertThat(row("SELECT tenant_id, status, title, turn_count, prompt_tokens FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("tenant_id", "acme"), entry("status", "open"), entry("title", null),
            entry("turn_count", 0), entry("prompt_tokens", 0L));
    assertThat(instant("SELECT created_at FROM sessions WHERE session_id = ?")).isEqualTo(OPENED);
    assertThat(rows("SELECT kind, tenant_id FROM billing_events WHERE session_id = ?"))
        .containsExactly(Map.of("kind", "session_start", "tenant_id", "acme"));
  }

  @Test
  void aCompletedTurnAddsTheQuestionItsAnswersAndTheirUsage() throws SQLException {
    apply(opened(), new ChatSession.SessionRenamed("Refunds", ACCEPTED), accepted("t-1", "m-user"),
        new ChatSession.TurnCompleted("t-1", "m-answer", twoRuns(), ENDED));

    assertThat(rows("SELECT message_id, turn_id, role, content, provider, model FROM messages WHERE session_id = ? ORDER BY role DESC, message_id"))
        .containsExactly(
            message("m-user", "user", "What is the refund window?", null, null),
            message("m-answer", "assistant", "Thirty days.", "openai-compatible", "gpt-main"),
            message("r-shadow", "assistant", "30 days.", "offline", "offline"));
    assertThat(row("SELECT title, turn_count, prompt_tokens, completion_tokens, cost_usd FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("title", "Refunds"), entry("turn_count", 1), entry("prompt_tokens", 240L),
            entry("completion_tokens", 40L), entry("cost_usd", twoRuns().usage().costUsd()));
    assertThat(instant("SELECT last_activity_at FROM sessions WHERE session_id = ?")).isEqualTo(ENDED);
    assertThat(rows("SELECT provider, model, prompt_tokens, completion_tokens FROM session_usage WHERE session_id = ? ORDER BY model"))
        .containsExactly(
            usageRow("openai-compatible", "gpt-main", 120, 30),
            usageRow("offline", "offline", 120, 10));
  }

  @Test
  void messagesAreNumberedAsTheSessionNumbersItsTurnsAndPageBackFromThere() throws Exception {
    TurnOutcome cited = new TurnOutcome(twoRuns().runs(),
        List.of(new dev.colloquy.engine.domain.Citation("d-1", "policy.md", "Refunds", 2, 0.9)), 0.8, List.of(),
        List.of(), 3000);
    apply(opened(), accepted("t-1", "m-1"), new ChatSession.TurnCompleted("t-1", "a-1", cited, ENDED),
        accepted("t-2", "m-2"), new ChatSession.TurnFailed("t-2", "MODEL_UNAVAILABLE", "down", outcome(), ENDED),
        accepted("t-3", "m-3"), new ChatSession.TurnCompleted("t-3", "a-3",
            outcome(run("r-3", "offline", "offline", RunOutcome.Status.COMPLETED, "Yes.", MAIN_USAGE)), ENDED));

    assertThat(rows("SELECT message_id, turn_ordinal, answer_index, run_id FROM messages WHERE session_id = ? "
        + "ORDER BY turn_ordinal, answer_index")).extracting(row -> row.get("message_id") + "@" + row.get("turn_ordinal")
            + "." + row.get("answer_index") + "/" + row.get("run_id"))
        .containsExactly("m-1@1.0/null", "a-1@1.1/r-main", "r-shadow@1.2/r-shadow", "m-2@2.0/null", "m-3@3.0/null",
            "a-3@3.1/r-3");

    JdbcMessageHistory history = new JdbcMessageHistory(dataSource(), Runnable::run);
    MessageHistory.Page beforeTurn3 = history.before(SESSION, MessageHistory.Position.startOfTurn(3), 3, 1 << 20)
        .toCompletableFuture().join();
    assertThat(beforeTurn3.messages()).extracting(m -> m.messageId()).containsExactly("a-1", "r-shadow", "m-2");
    assertThat(beforeTurn3.earlier()).isTrue();
    assertThat(beforeTurn3.messages().getFirst().citations()).extracting(c -> c.source()).containsExactly("policy.md");
    assertThat(beforeTurn3.messages().getFirst().runId()).isEqualTo("r-main");
    MessageHistory.Position ofAnswer = history.positionOf(SESSION, "a-1").toCompletableFuture().join().orElseThrow();
    MessageHistory.Page first = history.before(SESSION, ofAnswer, 10, 1 << 20).toCompletableFuture().join();
    assertThat(first.messages()).extracting(m -> m.messageId()).containsExactly("m-1");
    assertThat(first.earlier()).isFalse();
    assertThat(history.positionOf(SESSION, "no-such-message").toCompletableFuture().join()).isEmpty();
  }

  @Test
  void messagesProjectedBeforeTheyHadPlacesGetThemFromTheirTimes() throws Exception {
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("""
          INSERT INTO messages (message_id, session_id, turn_id, role, content, created_at) VALUES
            ('q1', 's-old', 't1', 'user', 'first', '2026-01-01T10:00:00Z'),
            ('a1', 's-old', 't1', 'assistant', 'answer', '2026-01-01T10:00:05Z'),
            ('q2', 's-old', 't2', 'user', 'second', '2026-01-01T10:01:00Z')""");
      statement.execute(ReadSide.script("db/migration/V88__message_positions.sql"));
    }

    assertThat(rows("SELECT message_id, turn_ordinal, answer_index FROM messages WHERE session_id = 's-old' "
        + "ORDER BY message_id")).extracting(row -> row.get("message_id") + "@" + row.get("turn_ordinal") + "." + row.get("answer_index"))
        .containsExactly("a1@1.1", "q1@1.0", "q2@2.0");
  }

  @Test
  void failedAndCancelledTurnsCountTheirUsageButAnswerNothing() throws SQLException {
    TurnOutcome failed = outcome(run("r-1", "openai-compatible", "gpt-main", RunOutcome.Status.FAILED, "", new Usage(50, 0, 0.001)));
    TurnOutcome cancelled = outcome(run("r-2", "openai-compatible", "gpt-main", RunOutcome.Status.CANCELLED, "Thir", new Usage(50, 2, 0.001)));

    apply(opened(), accepted("t-1", "m-1"), new ChatSession.TurnFailed("t-1", "MODEL_UNAVAILABLE", "down", failed, ENDED),
        accepted("t-2", "m-2"), new ChatSession.TurnCancelled("t-2", "client", cancelled, ENDED.plusSeconds(1)));

    assertThat(rows("SELECT role FROM messages WHERE session_id = ?")).extracting(row -> row.get("role")).containsOnly("user");
    assertThat(row("SELECT turn_count, prompt_tokens, completion_tokens FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("turn_count", 2), entry("prompt_tokens", 100L), entry("completion_tokens", 2L));
    assertThat(rows("SELECT provider, model, prompt_tokens, completion_tokens FROM session_usage WHERE session_id = ?"))
        .containsExactly(usageRow("openai-compatible", "gpt-main", 100, 2));
  }

  @Test
  void aClosedSessionIsBilledFromTheSummaryItsEventCarries() throws Exception {
    apply(opened(), accepted("t-1", "m-user"), new ChatSession.TurnCompleted("t-1", "m-answer", twoRuns(), ENDED),
        new ChatSession.SessionClosed("idle", summary(CLOSED), CLOSED));

    assertThat(row("SELECT status, close_reason FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("status", "closed"), entry("close_reason", "idle"));
    assertThat(instant("SELECT closed_at FROM sessions WHERE session_id = ?")).isEqualTo(CLOSED);
    assertThat(sessionEnd()).containsExactly(entry("reason", "idle"), entry("turns", 1), entry("completed_turns", 1),
        entry("prompt_tokens", 240L), entry("completion_tokens", 40L), entry("duration_ms", 60_000L));
    assertThat(usageByModel()).isEqualTo(JSON.readTree("""
        {"openai-compatible/gpt-main": {"prompt_tokens": 120, "completion_tokens": 30, "cost_usd": 0.002, "estimated": false},
         "offline/offline": {"prompt_tokens": 120, "completion_tokens": 10, "cost_usd": 0.0005, "estimated": true}}"""));
  }

  @Test
  void anOpenSessionDeletedWithItsSummaryIsBilledAsDeletedAndLosesItsContent() throws Exception {
    apply(opened(), new ChatSession.SessionRenamed("Refunds", ACCEPTED), accepted("t-1", "m-user"),
        new ChatSession.TurnCompleted("t-1", "m-answer", twoRuns(), ENDED), new ChatSession.SessionDeleted(CLOSED, summary(CLOSED)));

    assertThat(row("SELECT status, title FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("status", "deleted"), entry("title", null));
    assertThat(rows("SELECT message_id FROM messages WHERE session_id = ?")).isEmpty();
    assertThat(rows("SELECT model FROM session_usage WHERE session_id = ?")).isEmpty();
    assertThat(sessionEnd()).containsEntry("reason", "deleted").containsEntry("prompt_tokens", 240L)
        .containsEntry("completed_turns", 1).containsEntry("duration_ms", 60_000L);
    assertThat(usageByModel().path("offline/offline").path("completion_tokens").asLong()).isEqualTo(10);
  }

  @Test
  void aClosedSessionDeletedLaterKeepsTheBillOfItsClose() throws SQLException {
    apply(opened(), accepted("t-1", "m-user"), new ChatSession.TurnCompleted("t-1", "m-answer", twoRuns(), ENDED),
        new ChatSession.SessionClosed("client", summary(CLOSED), CLOSED),
        new ChatSession.SessionDeleted(CLOSED.plusSeconds(600), summary(CLOSED.plusSeconds(600))));

    assertThat(rows("SELECT kind FROM billing_events WHERE session_id = ?")).hasSize(2);
    assertThat(sessionEnd()).containsEntry("reason", "client").containsEntry("duration_ms", 60_000L);
    assertThat(row("SELECT status FROM sessions WHERE session_id = ?")).containsEntry("status", "deleted");
  }

  @Test
  void aDeletionJournaledWithoutASummaryIsBilledFromTheReadTotals() throws Exception {
    apply(opened(), accepted("t-1", "m-user"), new ChatSession.TurnCompleted("t-1", "m-answer", twoRuns(), ENDED),
        new ChatSession.SessionDeleted(CLOSED, null));

    assertThat(sessionEnd()).containsEntry("reason", "deleted").containsEntry("turns", 1).containsEntry("prompt_tokens", 240L)
        .containsEntry("completion_tokens", 40L).containsEntry("duration_ms", 60_000L);
    assertThat(usageByModel()).isEqualTo(JSON.readTree("""
        {"openai-compatible/gpt-main": {"prompt_tokens": 120, "completion_tokens": 30, "cost_usd": 0.002},
         "offline/offline": {"prompt_tokens": 120, "completion_tokens": 10, "cost_usd": 0.0005}}"""));
    assertThat(rows("SELECT message_id FROM messages WHERE session_id = ?")).isEmpty();
  }

  @Test
  void anEventAppliedAgainAddsNoSecondRow() throws SQLException {
    ChatSession.TurnAccepted accepted = accepted("t-1", "m-user");
    apply(opened(), opened(), accepted, accepted, new ChatSession.SessionClosed("idle", summary(CLOSED), CLOSED),
        new ChatSession.SessionClosed("idle", summary(CLOSED), CLOSED));

    assertThat(rows("SELECT message_id FROM messages WHERE session_id = ?")).hasSize(1);
    assertThat(rows("SELECT kind FROM billing_events WHERE session_id = ?")).hasSize(2);
    assertThat(rows("SELECT session_id FROM sessions")).hasSize(1);
  }

  @Test
  void everyEscalationOfASessionIsBilledOnceEvenWhenItsEventIsAppliedAgain() throws SQLException {
    ChatSession.SessionEscalated first = new ChatSession.SessionEscalated("t-1", EscalationReason.USER_REQUESTED,
        ENDED);
    ChatSession.SessionEscalated second = new ChatSession.SessionEscalated("t-2",
        EscalationReason.LOW_RETRIEVAL_CONFIDENCE, ENDED.plusSeconds(20));

    apply(opened(), accepted("t-1", "m-1"), new ChatSession.TurnCompleted("t-1", "a-1", twoRuns(), ENDED), first,
        new ChatSession.SessionHandedBack(ENDED.plusSeconds(10)), accepted("t-2", "m-2"),
        new ChatSession.TurnCompleted("t-2", "a-2", twoRuns(), ENDED.plusSeconds(20)), second, second, first);

    assertThat(rows("""
        SELECT occurrence, reason, turns, prompt_tokens FROM billing_events
        WHERE session_id = ? AND kind = 'escalation' ORDER BY occurred_at"""))
        .containsExactly(
            Map.of("occurrence", "t-1", "reason", "user_requested", "turns", 1, "prompt_tokens", 240L),
            Map.of("occurrence", "t-2", "reason", "low_retrieval_confidence", "turns", 2, "prompt_tokens", 480L));
  }

  @Test
  void theEscalationsTranscriptFollowsTheSessionsTurnsWhateverTheNodesClocksSaid() throws Exception {
    // The second turn ran on a node whose clock was behind: its question is stamped before the first answers.
    ChatSession.TurnAccepted second = new ChatSession.TurnAccepted("t-12", null, "trace-t-12", "m-2",
        "And for sale items?", List.of(new RunSpec("r-main", "openai-compatible", "gpt-main")), ENDED.minusSeconds(2));
    apply(opened(), accepted("t-11", "m-1"), new ChatSession.TurnCompleted("t-11", "a-1", twoRuns(), ENDED), second,
        new ChatSession.TurnCompleted("t-12", "a-2", outcome(run("r-main", "openai-compatible", "gpt-main",
            RunOutcome.Status.COMPLETED, "Fourteen days.", MAIN_USAGE)), ENDED.plusSeconds(1)),
        new ChatSession.SessionEscalated("t-12", EscalationReason.USER_REQUESTED, ENDED.plusSeconds(2)));

    JsonNode body = JSON.readTree((String) row(
        "SELECT payload FROM webhook_outbox WHERE session_id = ? AND webhook_id = 'esc_s-1_t-12'").get("payload"));
    assertThat(body.path("transcript").findValuesAsText("content")).containsExactly(
        "What is the refund window?", "Thirty days.", "30 days.", "And for sale items?", "Fourteen days.");
    assertThat(body.path("last_user_message").asText()).isEqualTo("And for sale items?");
  }

  @Test
  void theAgentsOwnModelCallsCountInTheSessionsUsageBesideItsRuns() throws SQLException {
    TurnOutcome routedAndAnswered = new TurnOutcome(List.of(run("r-main", "openai-compatible", "gpt-main",
        RunOutcome.Status.COMPLETED, "Thirty days.", MAIN_USAGE)), List.of(), 0.8, List.of(), List.of(), 3000,
        new AgentTrace(Intent.DOMAIN_QUERY, AgentTrace.BY_MODEL, null, false, List.of(), List.of(), List.of(
            new AgentCall(AgentCall.ROUTING, "openai-compatible", "gpt-main", new Usage(60, 1, 0.0001)),
            new AgentCall(AgentCall.EXTRACTION, "openai-compatible", "gpt-mini", new Usage(40, 5, 0.00001))), "en"));

    apply(opened(), accepted("t-1", "m-user"), new ChatSession.TurnCompleted("t-1", "m-answer", routedAndAnswered, ENDED));

    assertThat(row("SELECT prompt_tokens, completion_tokens FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("prompt_tokens", 220L), entry("completion_tokens", 36L));
    assertThat(rows("SELECT provider, model, prompt_tokens, completion_tokens FROM session_usage WHERE session_id = ? ORDER BY model"))
        .containsExactly(
            usageRow("openai-compatible", "gpt-main", 180, 31),
            usageRow("openai-compatible", "gpt-mini", 40, 5));
  }

  @Test
  void aTurnRunAgainAfterALostNodeIsBilledForTheAttemptCutShortToo() throws SQLException {
    TurnOutcome cutShort = new TurnOutcome(List.of(run("r-main", "openai-compatible", "gpt-main",
        RunOutcome.Status.CANCELLED, "Thir", new Usage(0, 2, 0.00002, true))), List.of(), 0, List.of(), List.of(), 0,
        new AgentTrace(Intent.DOMAIN_QUERY, null, null, false, List.of(), List.of(), List.of(
            new AgentCall(AgentCall.ROUTING, "openai-compatible", "gpt-main", new Usage(60, 1, 0.0001))), null));
    TurnOutcome answered = outcome(run("r-again", "openai-compatible", "gpt-main", RunOutcome.Status.COMPLETED,
        "Thirty days.", MAIN_USAGE));

    apply(opened(), accepted("t-1", "m-user"),
        new ChatSession.TurnRestarted("t-1", new TurnAttempt(List.of(new RunSpec("r-main", "openai-compatible",
            "gpt-main")), cutShort, 40, "node_lost"), List.of(new RunSpec("r-again", "openai-compatible", "gpt-main")),
            ENDED),
        new ChatSession.TurnCompleted("t-1", "m-answer", answered, ENDED));

    assertThat(row("SELECT turn_count, prompt_tokens, completion_tokens FROM sessions WHERE session_id = ?"))
        .containsExactly(entry("turn_count", 1), entry("prompt_tokens", 180L), entry("completion_tokens", 33L));
    assertThat(rows("SELECT provider, model, prompt_tokens, completion_tokens FROM session_usage WHERE session_id = ?"))
        .containsExactly(usageRow("openai-compatible", "gpt-main", 180, 33));
  }

  /**
   * The statements that update one turn's messages (its answers' turn number, their intent, confidence
   * and escalation flag) find them by their turn: in a session of 400 turns each reads the turn's two
   * rows, not the session's 800, so a turn's read-side cost does not grow with its session.
   */
  @Test
  void aTurnsUpdatesInALongSessionReadOnlyThatTurnsMessages() throws Exception {
    List<ChatSession.Event> events = new ArrayList<>(List.of(opened()));
    for (int turn = 1; turn <= 400; turn++) {
      events.add(accepted("t-" + turn, "m-" + turn));
      events.add(new ChatSession.TurnCompleted("t-" + turn, "a-" + turn,
          outcome(run("r-" + turn, "offline", "offline", RunOutcome.Status.COMPLETED, "Yes.", MAIN_USAGE)), ENDED));
    }
    apply(events.toArray(ChatSession.Event[]::new));
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("ANALYZE messages");
    }

    for (String statement : List.of(
        "SELECT turn_ordinal FROM messages WHERE session_id = 's-1' AND turn_id = 't-200' AND role = 'user'",
        "UPDATE messages SET intent_type = 'domain_query' WHERE session_id = 's-1' AND turn_id = 't-200'",
        "UPDATE messages SET escalation_flag = true WHERE session_id = 's-1' AND turn_id = 't-200'")) {
      JsonNode plan = database.plan(statement);
      assertThat(plan.findValues("Node Type")).as(statement).extracting(JsonNode::asText).doesNotContain("Seq Scan");
      assertThat(plan.findValues("Rows Removed by Filter").stream().mapToLong(JsonNode::asLong).sum())
          .as("rows of other turns read by " + statement).isLessThanOrEqualTo(1);
    }
  }

  private static ChatSession.SessionOpened opened() {
    return new ChatSession.SessionOpened(SESSION, "acme", null, "support", JsonNodeFactory.instance.objectNode(), OPENED);
  }

  private static ChatSession.TurnAccepted accepted(String turnId, String userMessageId) {
    return new ChatSession.TurnAccepted(turnId, null, "trace-" + turnId, userMessageId, "What is the refund window?",
        List.of(new RunSpec("r-main", "openai-compatible", "gpt-main")), ACCEPTED);
  }

  /** A turn answered by two models: the first completed run keeps the turn's message id, the other its run id. */
  private static TurnOutcome twoRuns() {
    return outcome(
        run("r-main", "openai-compatible", "gpt-main", RunOutcome.Status.COMPLETED, "Thirty days.", MAIN_USAGE),
        run("r-shadow", "offline", "offline", RunOutcome.Status.COMPLETED, "30 days.", SHADOW_USAGE));
  }

  private static TurnOutcome outcome(RunOutcome... runs) {
    return new TurnOutcome(List.of(runs), List.of(), 0.8, List.of(), List.of(), 3000);
  }

  private static RunOutcome run(String runId, String provider, String model, RunOutcome.Status status, String text, Usage usage) {
    boolean completed = status == RunOutcome.Status.COMPLETED;
    return new RunOutcome(runId, provider, model, status, text, usage, 3000,
        completed ? null : "MODEL_UNAVAILABLE", completed ? null : "down");
  }

  private static SessionSummary summary(Instant closedAt) {
    return new SessionSummary(1, 1, Map.of("openai-compatible/gpt-main", MAIN_USAGE, "offline/offline", SHADOW_USAGE),
        OPENED, closedAt, closedAt.toEpochMilli() - OPENED.toEpochMilli());
  }

  private static Map<String, Object> message(String id, String role, String content, String provider, String model) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("message_id", id);
    row.put("turn_id", "t-1");
    row.put("role", role);
    row.put("content", content);
    row.put("provider", provider);
    row.put("model", model);
    return row;
  }

  private static Map<String, Object> usageRow(String provider, String model, long prompt, long completion) {
    return Map.of("provider", provider, "model", model, "prompt_tokens", prompt, "completion_tokens", completion);
  }

  private static Map<String, Object> sessionEnd() throws SQLException {
    return row("""
        SELECT reason, turns, completed_turns, prompt_tokens, completion_tokens, duration_ms
        FROM billing_events WHERE session_id = ? AND kind = 'session_end'""");
  }

  private static JsonNode usageByModel() throws Exception {
    return JSON.readTree((String) row(
        "SELECT usage_by_model::text AS usage FROM billing_events WHERE session_id = ? AND kind = 'session_end'").get("usage"));
  }

  /** Applies each event in its own transaction, as the projection does. */
  private static void apply(ChatSession.Event... events) throws SQLException {
    try (Connection connection = dataSource().getConnection()) {
      for (ChatSession.Event event : events) {
        new ReadModelUpdates(connection, SESSION).apply(event);
      }
    }
  }

  private static Map<String, Object> row(String sql) throws SQLException {
    List<Map<String, Object>> rows = rows(sql);
    assertThat(rows).as(sql).hasSize(1);
    return rows.getFirst();
  }

  private static Instant instant(String sql) throws SQLException {
    try (Connection connection = dataSource().getConnection(); PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, SESSION);
      try (ResultSet result = query.executeQuery()) {
        assertThat(result.next()).as(sql).isTrue();
        return result.getObject(1, OffsetDateTime.class).toInstant();
      }
    }
  }

  /** The rows of a query whose parameters, if any, are all this test's session id; columns in select order. */
  private static List<Map<String, Object>> rows(String sql) throws SQLException {
    try (Connection connection = dataSource().getConnection(); PreparedStatement query = connection.prepareStatement(sql)) {
      for (int i = 1; i <= query.getParameterMetaData().getParameterCount(); i++) {
        query.setString(i, SESSION);
      }
      List<Map<String, Object>> rows = new ArrayList<>();
      try (ResultSet result = query.executeQuery()) {
        ResultSetMetaData columns = result.getMetaData();
        while (result.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int c = 1; c <= columns.getColumnCount(); c++) {
            row.put(columns.getColumnLabel(c), result.getObject(c));
          }
          rows.add(row);
        }
      }
      return rows;
    }
  }

  private static DataSource dataSource() {
    return database.dataSource();
  }
}
