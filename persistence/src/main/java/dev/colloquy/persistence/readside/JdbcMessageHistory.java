package dev.colloquy.persistence.readside;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.engine.domain.Citation;
import dev.colloquy.engine.session.SessionView;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/** The pages of a session's history from the {@code messages} table, by the place each message has there. */
public final class JdbcMessageHistory implements MessageHistory {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DataSource dataSource;
  private final Executor executor;

  public JdbcMessageHistory(DataSource dataSource, Executor executor) {
    this.dataSource = dataSource;
    this.executor = executor;
  }

  @Override
  public CompletionStage<Optional<Position>> positionOf(String sessionId, String messageId) {
    return CompletableFuture.supplyAsync(() -> {
      try (Connection connection = dataSource.getConnection();
          PreparedStatement query = connection.prepareStatement("""
              SELECT turn_ordinal, answer_index FROM messages
              WHERE session_id = ? AND message_id = ? AND turn_ordinal IS NOT NULL""")) {
        query.setString(1, sessionId);
        query.setString(2, messageId);
        try (ResultSet row = query.executeQuery()) {
          return row.next() ? Optional.of(new Position(row.getInt(1), row.getInt(2), messageId)) : Optional.empty();
        }
      } catch (SQLException e) {
        throw new IllegalStateException("Cannot read the messages of session " + sessionId, e);
      }
    }, executor);
  }

  @Override
  public CompletionStage<Page> before(String sessionId, Position position, int limit, long budgetBytes) {
    return CompletableFuture.supplyAsync(() -> page(sessionId, position, limit, budgetBytes), executor);
  }

  private Page page(String sessionId, Position position, int limit, long budgetBytes) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement("""
            SELECT message_id, role, content, turn_id, run_id, model, citations, created_at FROM messages
            WHERE session_id = ? AND (turn_ordinal, answer_index, message_id) < (?, ?, ?)
            ORDER BY turn_ordinal DESC, answer_index DESC, message_id DESC LIMIT ?""")) {
      query.setString(1, sessionId);
      query.setInt(2, position.turn());
      query.setInt(3, position.index());
      query.setString(4, position.messageId());
      query.setInt(5, limit + 1);
      List<SessionView.MessageView> newestFirst = new ArrayList<>();
      boolean earlier = false;
      long bytes = 0;
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          String content = rows.getString("content");
          long size = content.getBytes(StandardCharsets.UTF_8).length;
          if (newestFirst.size() == limit || (!newestFirst.isEmpty() && bytes + size > budgetBytes)) {
            earlier = true;
            break;
          }
          bytes += size;
          newestFirst.add(new SessionView.MessageView(rows.getString("message_id"), rows.getString("role"), content,
              rows.getString("turn_id"), rows.getString("run_id"), rows.getString("model"),
              citations(rows.getString("citations")), rows.getObject("created_at", OffsetDateTime.class).toInstant()));
        }
      }
      Collections.reverse(newestFirst);
      return new Page(newestFirst, earlier);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the messages of session " + sessionId, e);
    }
  }

  private static List<Citation> citations(String json) {
    if (json == null) {
      return List.of();
    }
    try {
      List<Citation> citations = new ArrayList<>();
      for (JsonNode citation : JSON.readTree(json)) {
        citations.add(new Citation(citation.path("document_id").asText(null), citation.path("source").asText(null),
            citation.path("section").asText(null), citation.path("chunk_index").asInt(),
            citation.path("score").asDouble()));
      }
      return citations;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("The citations of a message are not JSON", e);
    }
  }
}
