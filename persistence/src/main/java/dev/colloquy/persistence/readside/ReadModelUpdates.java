package dev.colloquy.persistence.readside;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.domain.AgentCall;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.domain.TurnStatus;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionTags;
import dev.colloquy.engine.session.TurnRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;

/**
 * What each session event changes in the read tables. Every write is keyed so that applying an
 * event twice would not add a second row; the projection's exactly-once offsets make sure it is not.
 */
final class ReadModelUpdates {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Connection connection;
  private final String sessionId;

  ReadModelUpdates(Connection connection, String sessionId) {
    this.connection = connection;
    this.sessionId = sessionId;
  }

  /**
   * Applies {@code event} to the read tables. One that may open or end the session also moves its
   * tenant's count of open sessions (see V95), by what it changed in the session's row: whether the row
   * was open before and is after, so that applying it again moves nothing.
   */
  void apply(ChatSession.Event event) throws SQLException {
    if (!opensOrEnds(event)) {
      applyToRows(event);
      return;
    }
    SessionOpenness before = openness();
    applyToRows(event);
    countOpenSessions(before, openness());
  }

  /**
   * The events whose handling writes the session's status (a fork's writes its title and turns only): a
   * new one that does belongs here.
   */
  private static boolean opensOrEnds(ChatSession.Event event) {
    return event instanceof ChatSession.SessionOpened
        || event instanceof ChatSession.SessionClosed || event instanceof ChatSession.SessionReopened
        || event instanceof ChatSession.SessionDeleted || event instanceof ChatSession.SessionEscalated
        || event instanceof ChatSession.SessionHandedBack;
  }

  /** Whose the session is and whether it is open, as its row says; null before it has one. */
  private record SessionOpenness(String tenantId, boolean open) {}

  private SessionOpenness openness() throws SQLException {
    try (PreparedStatement query = prepared("SELECT tenant_id, status = 'open' FROM sessions WHERE session_id = ?",
        sessionId); ResultSet row = query.executeQuery()) {
      return row.next() ? new SessionOpenness(row.getString(1), row.getBoolean(2)) : null;
    }
  }

  /** In the session's projection slice, so that the projection's instances never wait on each other. */
  private void countOpenSessions(SessionOpenness before, SessionOpenness after) throws SQLException {
    boolean wasOpen = before != null && before.open();
    boolean isOpen = after != null && after.open();
    if (wasOpen == isOpen) {
      return;
    }
    execute("""
        INSERT INTO tenant_open_sessions (tenant_id, slice, open_sessions) VALUES (?, ?, ?)
        ON CONFLICT (tenant_id, slice) DO UPDATE SET
          open_sessions = tenant_open_sessions.open_sessions + EXCLUDED.open_sessions""",
        (after != null ? after : before).tenantId(), SessionTags.of(sessionId), isOpen ? 1 : -1);
  }

  private void applyToRows(ChatSession.Event event) throws SQLException {
    switch (event) {
      case ChatSession.SessionOpened e -> opened(e);
      case ChatSession.SessionRenamed e -> update("UPDATE sessions SET title = ? WHERE session_id = ?", e.title());
      case ChatSession.TurnAccepted e -> accepted(e);
      case ChatSession.TurnCompleted e -> completed(e);
      case ChatSession.TurnFailed e -> turnEnded(e.outcome(), e.at());
      case ChatSession.TurnCancelled e -> turnEnded(e.outcome(), e.at());
      case ChatSession.NarrativeStateMerged e -> { }
      case ChatSession.HistorySummarized e -> { }
      // A turn's progress shows in the read tables once it ends, with its outcome; an attempt cut short
      // by a lost node is billed for what it used (streamed tokens, the agent's calls) when the turn restarts.
      case ChatSession.TurnCheckpointed e -> { }
      case ChatSession.TurnRestarted e -> {
        if (e.cutShort() != null) {
          turnEnded(e.cutShort().outcome(), e.at());
        }
      }
      case ChatSession.SessionForked e -> forked(e);
      case ChatSession.SessionClosed e -> closed(e);
      case ChatSession.SessionReopened e -> reopened(e);
      case ChatSession.SessionDeleted e -> deleted(e);
      case ChatSession.SessionEscalated e -> escalated(e);
      case ChatSession.SessionHandedBack e ->
          update("UPDATE sessions SET status = 'open' WHERE session_id = ? AND status = 'escalated'", null);
    }
  }

  private void opened(ChatSession.SessionOpened e) throws SQLException {
    execute("""
        INSERT INTO sessions (session_id, tenant_id, user_id, character_id, status, created_at, last_activity_at)
        VALUES (?, ?, ?, ?, 'open', ?, ?) ON CONFLICT (session_id) DO NOTHING""",
        sessionId, e.tenantId(), e.userId(), e.characterId(), time(e.at()), time(e.at()));
    execute("""
        INSERT INTO billing_events (session_id, kind, tenant_id, occurred_at)
        VALUES (?, 'session_start', ?, ?) ON CONFLICT (session_id, kind, occurrence) DO NOTHING""",
        sessionId, e.tenantId(), time(e.at()));
  }

  /**
   * The user's message, numbered as the session numbers its turns: by the count of turns accepted. One
   * statement counts the turn, adds the message and says whether the session is with a human (whose
   * webhook then gets the message).
   */
  private void accepted(ChatSession.TurnAccepted e) throws SQLException {
    Object status = firstValue("""
        WITH counted AS (
          UPDATE sessions SET turn_count = turn_count + 1, last_activity_at = ? WHERE session_id = ?
          RETURNING turn_count, status),
        asked AS (
          INSERT INTO messages (message_id, session_id, turn_id, role, content, created_at, turn_ordinal, answer_index)
          VALUES (?, ?, ?, 'user', ?, ?, (SELECT turn_count FROM counted), 0) ON CONFLICT (message_id) DO NOTHING)
        SELECT status FROM counted""",
        time(e.at()), sessionId, e.userMessageId(), sessionId, e.turnId(), e.message(), time(e.at()));
    if ("escalated".equals(status)) {
      new EscalationWebhooks(connection, sessionId).forwardIfHandedOff(e);
    }
  }

  /**
   * A fork shows the turns it inherited, with their messages; their usage was billed to the session
   * they came from, so it is not added here.
   */
  private void forked(ChatSession.SessionForked e) throws SQLException {
    int ordinal = 0;
    for (TurnRecord turn : e.turns()) {
      ordinal++;
      execute("""
          INSERT INTO messages (message_id, session_id, turn_id, role, content, created_at, turn_ordinal, answer_index)
          VALUES (?, ?, ?, 'user', ?, ?, ?, 0) ON CONFLICT (message_id) DO NOTHING""",
          turn.userMessageId(), sessionId, turn.turnId(), turn.message(), time(turn.acceptedAt()), ordinal);
      if (turn.status() == TurnStatus.COMPLETED) {
        String citations = citationsJson(turn.outcome());
        int index = 0;
        for (TurnOutcome.Answer answer : turn.outcome().answers(turn.assistantMessageId())) {
          RunOutcome run = answer.run();
          execute("""
              INSERT INTO messages (message_id, session_id, turn_id, role, content, provider, model, created_at,
                turn_ordinal, answer_index, run_id, citations)
              VALUES (?, ?, ?, 'assistant', ?, ?, ?, ?, ?, ?, ?, CAST(? AS JSONB))
              ON CONFLICT (message_id) DO NOTHING""",
              answer.messageId(), sessionId, turn.turnId(), run.text(), run.provider(), run.model(),
              time(turn.endedAt()), ordinal, ++index, run.runId(), citations);
        }
      }
    }
    execute("UPDATE sessions SET title = ?, turn_count = ?, last_activity_at = ? WHERE session_id = ?",
        e.title(), e.turns().size(), time(e.at()), sessionId);
  }

  /**
   * The session goes to a human: its row and the turn's answer say so, the escalation is billed
   * (seed 004 §11: a conversation is one unit from its start to its end or escalation; every
   * escalation of a session is a record of its own, told apart by its turn, with the session's totals
   * so far), and its webhook joins the outbox.
   */
  private void escalated(ChatSession.SessionEscalated e) throws SQLException {
    execute("UPDATE sessions SET status = 'escalated', escalation_reason = ?, escalated_at = ? WHERE session_id = ?",
        e.reason().wireName(), time(e.at()), sessionId);
    execute("UPDATE messages SET escalation_flag = true WHERE session_id = ? AND turn_id = ?", sessionId, e.turnId());
    execute("""
        INSERT INTO billing_events (session_id, kind, occurrence, tenant_id, occurred_at, reason, turns, prompt_tokens,
          completion_tokens, cost_usd, duration_ms)
        SELECT session_id, 'escalation', ?, tenant_id, ?, ?, turn_count, prompt_tokens, completion_tokens, cost_usd,
          CAST(EXTRACT(EPOCH FROM (CAST(? AS TIMESTAMPTZ) - created_at)) * 1000 AS BIGINT)
        FROM sessions WHERE session_id = ?
        ON CONFLICT (session_id, kind, occurrence) DO NOTHING""",
        e.turnId() == null ? "" : e.turnId(), time(e.at()), e.reason().wireName(), time(e.at()), sessionId);
    new EscalationWebhooks(connection, sessionId).escalation(e);
  }

  /**
   * The answers as the session shows them, after their turn's user message, with what the agent decided
   * for the turn (seed 004's columns): the intent on the turn's messages; the confidence and the chunks on
   * its answers, null when the turn did not retrieve (conversational and out-of-scope turns, seed §8.2).
   */
  private void completed(ChatSession.TurnCompleted e) throws SQLException {
    TurnOutcome outcome = e.outcome();
    AgentTrace agent = outcome.agent();
    String intent = agent == null || agent.intent() == null ? null : agent.intent().wireName();
    boolean retrieved = agent == null ? !outcome.frames().isEmpty() : agent.intent() == Intent.DOMAIN_QUERY;
    Double confidence = retrieved ? outcome.confidence() : null;
    String chunks = retrieved ? sourceChunksJson(outcome) : null;
    String citations = citationsJson(outcome);
    int index = 0;
    for (TurnOutcome.Answer answer : outcome.answers(e.messageId())) {
      RunOutcome run = answer.run();
      execute("""
          INSERT INTO messages (message_id, session_id, turn_id, role, content, provider, model, created_at,
            turn_ordinal, answer_index, run_id, citations, intent_type, confidence_score, source_chunks)
          VALUES (?, ?, ?, 'assistant', ?, ?, ?, ?,
            (SELECT turn_ordinal FROM messages WHERE session_id = ? AND turn_id = ? AND role = 'user'), ?, ?,
            CAST(? AS JSONB), ?, ?, CAST(? AS JSONB))
          ON CONFLICT (message_id) DO NOTHING""",
          answer.messageId(), sessionId, e.turnId(), run.text(), run.provider(), run.model(), time(e.at()),
          sessionId, e.turnId(), ++index, run.runId(), citations, intent, confidence, chunks);
    }
    if (intent != null) {
      execute("UPDATE messages SET intent_type = ? WHERE session_id = ? AND turn_id = ? AND role = 'user'",
          intent, sessionId, e.turnId());
    }
    turnEnded(outcome, e.at());
  }

  private static String citationsJson(TurnOutcome outcome) {
    ArrayNode citations = JSON.createArrayNode();
    for (Citation citation : outcome.citations()) {
      citations.addObject().put("document_id", citation.documentId()).put("source", citation.source())
          .put("section", citation.section()).put("chunk_index", citation.chunkIndex()).put("score", citation.score());
    }
    return citations.toString();
  }

  private static String sourceChunksJson(TurnOutcome outcome) {
    ArrayNode chunks = JSON.createArrayNode();
    outcome.citations().forEach(citation -> chunks.addObject()
        .put("document_id", citation.documentId()).put("chunk_index", citation.chunkIndex()));
    return chunks.toString();
  }

  private void turnEnded(TurnOutcome outcome, Instant at) throws SQLException {
    Usage total = outcome.usage();
    long tokens = total.promptTokens() + total.completionTokens();
    // The session's totals and its tenant's month in one statement: the month's row needs the tenant,
    // which the session's row holds.
    execute("""
        WITH session AS (
          UPDATE sessions SET last_activity_at = ?, prompt_tokens = prompt_tokens + ?,
            completion_tokens = completion_tokens + ?, cost_usd = cost_usd + ? WHERE session_id = ?
          RETURNING tenant_id)
        INSERT INTO tenant_monthly_tokens (tenant_id, month, slice, tokens)
        SELECT tenant_id, ?, ?, ? FROM session WHERE ? > 0
        ON CONFLICT (tenant_id, month, slice) DO UPDATE SET tokens = tenant_monthly_tokens.tokens + EXCLUDED.tokens""",
        time(at), total.promptTokens(), total.completionTokens(), total.costUsd(), sessionId,
        YearMonth.from(time(at)).atDay(1), SessionTags.of(sessionId), tokens, tokens);
    for (RunOutcome run : outcome.runs()) {
      addUsage(run.provider(), run.model(), run.usage() == null ? Usage.NONE : run.usage());
    }
    for (AgentCall call : outcome.agentCalls()) {
      addUsage(call.provider(), call.model(), call.usage());
    }
  }

  /** Adds to the session's usage of one provider and model: a run's, or one of the agent's own calls'. */
  private void addUsage(String provider, String model, Usage usage) throws SQLException {
    execute("""
        INSERT INTO session_usage (session_id, provider, model, prompt_tokens, completion_tokens, cost_usd)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (session_id, provider, model) DO UPDATE SET
          prompt_tokens = session_usage.prompt_tokens + EXCLUDED.prompt_tokens,
          completion_tokens = session_usage.completion_tokens + EXCLUDED.completion_tokens,
          cost_usd = session_usage.cost_usd + EXCLUDED.cost_usd""",
        sessionId, provider, model, usage.promptTokens(), usage.completionTokens(), usage.costUsd());
  }

  private void closed(ChatSession.SessionClosed e) throws SQLException {
    execute("UPDATE sessions SET status = 'closed', closed_at = ?, close_reason = ? WHERE session_id = ?",
        time(e.at()), e.reason(), sessionId);
    sessionEnd(e.reason(), e.summary(), e.at(), "");
  }

  /**
   * A session closed for idleness opened again for a turn: listed as open, and billed as a new stretch
   * from here, whose start and (at its close) end records carry the reopening turn's id.
   */
  private void reopened(ChatSession.SessionReopened e) throws SQLException {
    execute("""
        UPDATE sessions SET status = 'open', closed_at = NULL, close_reason = NULL, stretch = ?, last_activity_at = ?
        WHERE session_id = ? AND status = 'closed'""", e.turnId(), time(e.at()), sessionId);
    execute("""
        INSERT INTO billing_events (session_id, kind, occurrence, tenant_id, occurred_at)
        SELECT ?, 'session_start', ?, tenant_id, ? FROM sessions WHERE session_id = ?
        ON CONFLICT (session_id, kind, occurrence) DO NOTHING""", sessionId, e.turnId(), time(e.at()), sessionId);
  }

  /**
   * The billing record of a session's end (of the stretch it is in), from its summary; {@code condition}
   * narrows which session rows get one.
   */
  private void sessionEnd(String reason, SessionSummary summary, Instant at, String condition) throws SQLException {
    Usage total = summary.usageByModel().values().stream().reduce(Usage.NONE, Usage::plus);
    execute("""
        INSERT INTO billing_events (session_id, kind, occurrence, tenant_id, occurred_at, reason, turns, completed_turns,
          prompt_tokens, completion_tokens, cost_usd, duration_ms, usage_by_model)
        SELECT ?, 'session_end', stretch, tenant_id, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS JSONB) FROM sessions WHERE session_id = ?"""
        + condition + " ON CONFLICT (session_id, kind, occurrence) DO NOTHING",
        sessionId, time(at), reason, summary.turns(), summary.completedTurns(), total.promptTokens(),
        total.completionTokens(), total.costUsd(), summary.durationMs(), usageJson(summary), sessionId);
  }

  /**
   * A deleted session keeps a row marked deleted, without its title, so that it is not listed;
   * its messages and usage go. Billing records stay: what was used was used. A session deleted while
   * open gets its {@code session_end} now, with reason {@code deleted} and the summary its event
   * carries; an event journaled before it carried one is billed from the read tables' totals.
   */
  private void deleted(ChatSession.SessionDeleted e) throws SQLException {
    if (e.summary() != null) {
      sessionEnd("deleted", e.summary(), e.at(), " AND status = 'open'");
    } else {
      sessionEndFromTotals(e.at());
    }
    execute("DELETE FROM messages WHERE session_id = ?", sessionId);
    execute("DELETE FROM session_usage WHERE session_id = ?", sessionId);
    execute("UPDATE sessions SET status = 'deleted', title = NULL WHERE session_id = ?", sessionId);
  }

  private void sessionEndFromTotals(Instant at) throws SQLException {
    execute("""
        INSERT INTO billing_events (session_id, kind, tenant_id, occurred_at, reason, turns, prompt_tokens,
          completion_tokens, cost_usd, duration_ms, usage_by_model)
        SELECT s.session_id, 'session_end', s.tenant_id, ?, 'deleted', s.turn_count, s.prompt_tokens,
          s.completion_tokens, s.cost_usd,
          CAST(EXTRACT(EPOCH FROM (CAST(? AS TIMESTAMPTZ) - s.created_at)) * 1000 AS BIGINT),
          COALESCE((SELECT jsonb_object_agg(u.provider || '/' || u.model, jsonb_build_object('prompt_tokens',
            u.prompt_tokens, 'completion_tokens', u.completion_tokens, 'cost_usd', u.cost_usd))
            FROM session_usage u WHERE u.session_id = s.session_id), '{}'::jsonb)
        FROM sessions s WHERE s.session_id = ? AND s.status = 'open'
        ON CONFLICT (session_id, kind, occurrence) DO NOTHING""",
        time(at), time(at), sessionId);
  }

  private static String usageJson(SessionSummary summary) {
    ObjectNode byModel = JSON.createObjectNode();
    summary.usageByModel().forEach((model, usage) -> byModel.putObject(model)
        .put("prompt_tokens", usage.promptTokens())
        .put("completion_tokens", usage.completionTokens())
        .put("cost_usd", usage.costUsd())
        .put("estimated", usage.estimated()));
    return byModel.toString();
  }

  /** An update of this session's row whose last parameter is the session id; a null value is no parameter. */
  private void update(String sql, Object value) throws SQLException {
    if (value == null) {
      execute(sql, sessionId);
    } else {
      execute(sql, value, sessionId);
    }
  }

  private void execute(String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = prepared(sql, parameters)) {
      statement.executeUpdate();
    }
  }

  /** The first column of the first row {@code sql} returns, or null when it returns none. */
  private Object firstValue(String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = prepared(sql, parameters); ResultSet row = statement.executeQuery()) {
      return row.next() ? row.getObject(1) : null;
    }
  }

  private PreparedStatement prepared(String sql, Object... parameters) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i] instanceof String text ? storable(text) : parameters[i]);
      }
      return statement;
    } catch (SQLException e) {
      statement.close();
      throw e;
    }
  }

  /**
   * PostgreSQL's text holds every character but NUL, which a message or a model's answer may carry
   * (the journal keeps it): refused, it would stop the projection for every session behind it. The
   * read tables get U+FFFD in its place.
   */
  private static String storable(String text) {
    return text.indexOf('\u0000') < 0 ? text : text.replace('\u0000', '\ufffd');
  }

  private static OffsetDateTime time(Instant at) {
    return at.atOffset(ZoneOffset.UTC);
  }
}
