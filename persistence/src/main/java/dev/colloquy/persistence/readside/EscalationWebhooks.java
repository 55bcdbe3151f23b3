package dev.colloquy.persistence.readside;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.session.ChatSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The webhooks the session projection puts in the outbox, in the transaction of the event they come
 * from: the escalation of seed 004 §7.4 (with the transcript as the read tables hold it at that
 * event), and each message sent while a human has the session. A webhook's id is derived from its
 * event, so a projection that sees the event again adds nothing.
 */
final class EscalationWebhooks {

  static final String ESCALATION = "escalation";
  static final String HANDOFF_MESSAGE = "handoff_message";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Connection connection;
  private final String sessionId;

  EscalationWebhooks(Connection connection, String sessionId) {
    this.connection = connection;
    this.sessionId = sessionId;
  }

  /** Seed 004 §7.4's body. */
  void escalation(ChatSession.SessionEscalated e) throws SQLException {
    Session session = session();
    if (session == null) {
      return;
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("event", ESCALATION);
    body.put("session_id", sessionId);
    body.put("tenant_id", session.tenantId());
    body.put("external_user_id", session.userId());
    body.put("escalation_reason", e.reason().wireName());
    ArrayNode transcript = body.putArray("transcript");
    String lastUserMessage = null;
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT role, content, created_at FROM messages WHERE session_id = ? ORDER BY turn_ordinal, answer_index")) {
      query.setString(1, sessionId);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          String role = rows.getString("role");
          String content = rows.getString("content");
          transcript.addObject().put("role", role).put("content", content)
              .put("timestamp", rows.getObject("created_at", OffsetDateTime.class).toInstant().toString());
          if (role.equals("user")) {
            lastUserMessage = content;
          }
        }
      }
    }
    body.put("last_user_message", lastUserMessage);
    body.put("escalated_at", e.at().toString());
    enqueue("esc_" + sessionId + "_" + e.turnId(), session.tenantId(), ESCALATION, body, e.at());
  }

  /** A message sent while the session is escalated goes to the human who has it. */
  void forwardIfHandedOff(ChatSession.TurnAccepted e) throws SQLException {
    Session session = session();
    if (session == null || !session.status().equals("escalated")) {
      return;
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("event", HANDOFF_MESSAGE);
    body.put("session_id", sessionId);
    body.put("tenant_id", session.tenantId());
    body.put("external_user_id", session.userId());
    body.put("turn_id", e.turnId());
    body.put("message", e.message());
    body.put("sent_at", e.at().toString());
    enqueue("msg_" + sessionId + "_" + e.turnId(), session.tenantId(), HANDOFF_MESSAGE, body, e.at());
  }

  private record Session(String tenantId, String userId, String status) {}

  private Session session() throws SQLException {
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT tenant_id, user_id, status FROM sessions WHERE session_id = ?")) {
      query.setString(1, sessionId);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? new Session(row.getString(1), row.getString(2), row.getString(3)) : null;
      }
    }
  }

  private void enqueue(String webhookId, String tenantId, String eventType, ObjectNode body, Instant at)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("""
        INSERT INTO webhook_outbox (webhook_id, tenant_id, session_id, event_type, payload, status, attempts,
          next_attempt_at, created_at)
        VALUES (?, ?, ?, ?, ?, 'pending', 0, now(), ?) ON CONFLICT (webhook_id) DO NOTHING""")) {
      insert.setString(1, webhookId);
      insert.setString(2, tenantId);
      insert.setString(3, sessionId);
      insert.setString(4, eventType);
      insert.setString(5, body.toString());
      insert.setObject(6, at.atOffset(ZoneOffset.UTC));
      insert.executeUpdate();
    }
  }
}
