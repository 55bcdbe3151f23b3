package dev.colloquy.engine.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.CborSerializable;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import java.time.Instant;
import java.util.List;

/**
 * A session as its owner sees it: status, title, messages in order, narrative state; the character of
 * a chat, and the user it belongs to (null for a session of the whole tenant).
 */
public record SessionView(
    String sessionId,
    SessionStatus status,
    String title,
    String persona,
    JsonNode metadata,
    Instant createdAt,
    Instant updatedAt,
    String closeReason,
    List<MessageView> messages,
    JsonNode narrativeState,
    String runningTurnId,
    SessionSummary summary,
    String characterId,
    String userId)
    implements CborSerializable {

  public SessionView {
    messages = List.copyOf(messages);
  }

  /** A user message, or one completed run's answer (a turn with several runs has several). */
  public record MessageView(
      String messageId,
      String role,
      String content,
      String turnId,
      String runId,
      String model,
      List<Citation> citations,
      Instant createdAt)
      implements CborSerializable {

    public MessageView {
      citations = List.copyOf(citations);
    }
  }
}
