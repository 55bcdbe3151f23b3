package dev.colloquy.persistence.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.agent.MemoryStore;
import dev.colloquy.engine.agent.UserContext;
import dev.colloquy.engine.model.EmbeddingModel;
import java.io.IOException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The users' memories in {@code agent_memories} and {@code user_context}, every query filtered by
 * tenant and user. A fact is embedded when it is stored; recall embeds the message and ranks the
 * user's facts by cosine similarity. A fact whose text the user already has, or whose meaning is
 * nearly the same as one of theirs ({@link #DUPLICATE_SIMILARITY}), is not stored again.
 */
public final class JdbcMemoryStore implements MemoryStore {

  /** Cosine similarity above which two facts say the same thing. */
  static final double DUPLICATE_SIMILARITY = 0.95;
  /** The facts of one user compared at most: the newest. */
  static final int MAX_COMPARED = 1_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DataSource dataSource;
  private final EmbeddingModel embeddings;

  public JdbcMemoryStore(DataSource dataSource, EmbeddingModel embeddings) {
    this.dataSource = dataSource;
    this.embeddings = embeddings;
  }

  private record Stored(Memory memory, float[] vector) {}

  @Override
  public List<Memory> recall(String tenantId, String userId, String query, int limit) {
    List<Stored> stored = stored(tenantId, userId);
    if (stored.isEmpty() || limit <= 0) {
      return List.of();
    }
    float[] asked = embeddings.embed(List.of(query)).getFirst();
    return stored.stream()
        .sorted(Comparator.comparingDouble((Stored memory) -> -cosine(asked, memory.vector())))
        .limit(limit).map(Stored::memory).toList();
  }

  @Override
  public List<Memory> remember(String tenantId, String userId, List<String> facts, String source, String sessionId) {
    if (facts.isEmpty()) {
      return List.of();
    }
    List<float[]> vectors = embeddings.embed(facts);
    List<Stored> known = new ArrayList<>(stored(tenantId, userId));
    List<Memory> added = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement insert = connection.prepareStatement("""
            INSERT INTO agent_memories (memory_id, tenant_id, user_id, content, content_key, embedding, source,
              session_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, user_id, content_key) DO NOTHING""")) {
      for (int i = 0; i < facts.size(); i++) {
        String fact = facts.get(i).strip();
        float[] vector = vectors.get(i);
        if (fact.isEmpty() || known.stream().anyMatch(memory -> cosine(vector, memory.vector()) >= DUPLICATE_SIMILARITY)) {
          continue;
        }
        Memory memory = new Memory(UUID.randomUUID().toString(), fact, source, Instant.now());
        insert.setString(1, memory.memoryId());
        insert.setString(2, tenantId);
        insert.setString(3, userId);
        insert.setString(4, fact);
        insert.setString(5, key(fact));
        insert.setArray(6, connection.createArrayOf("real", boxed(vector)));
        insert.setString(7, source);
        insert.setString(8, sessionId);
        insert.setObject(9, memory.createdAt().atOffset(ZoneOffset.UTC));
        if (insert.executeUpdate() == 1) {
          added.add(memory);
          known.add(new Stored(memory, vector));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot store the user's memories", e);
    }
    return added;
  }

  @Override
  public List<Memory> list(String tenantId, String userId) {
    return stored(tenantId, userId).stream().map(Stored::memory).toList();
  }

  @Override
  public boolean forget(String tenantId, String userId, String memoryId) {
    return update("DELETE FROM agent_memories WHERE tenant_id = ? AND user_id = ? AND memory_id = ?",
        tenantId, userId, memoryId) == 1;
  }

  @Override
  public int forgetAll(String tenantId, String userId) {
    update("DELETE FROM user_context WHERE tenant_id = ? AND user_id = ?", tenantId, userId);
    return update("DELETE FROM agent_memories WHERE tenant_id = ? AND user_id = ?", tenantId, userId);
  }

  @Override
  public Optional<UserContext> context(String tenantId, String userId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT plan, usage, preferences FROM user_context WHERE tenant_id = ? AND user_id = ?")) {
      query.setString(1, tenantId);
      query.setString(2, userId);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? Optional.of(new UserContext(row.getString(1), json(row.getString(2)), json(row.getString(3))))
            : Optional.empty();
      }
    } catch (SQLException | IOException e) {
      throw new IllegalStateException("Cannot read the user's context", e);
    }
  }

  @Override
  public void setContext(String tenantId, String userId, UserContext context) {
    update("""
        INSERT INTO user_context (tenant_id, user_id, plan, usage, preferences, updated_at)
        VALUES (?, ?, ?, CAST(? AS JSONB), CAST(? AS JSONB), now())
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET plan = EXCLUDED.plan, usage = EXCLUDED.usage,
          preferences = EXCLUDED.preferences, updated_at = EXCLUDED.updated_at""",
        tenantId, userId, context.plan(), text(context.usage()), text(context.preferences()));
  }

  private List<Stored> stored(String tenantId, String userId) {
    List<Stored> stored = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement("""
            SELECT memory_id, content, source, created_at, embedding FROM agent_memories
            WHERE tenant_id = ? AND user_id = ? ORDER BY created_at DESC, memory_id LIMIT ?""")) {
      query.setString(1, tenantId);
      query.setString(2, userId);
      query.setInt(3, MAX_COMPARED);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          Array vector = rows.getArray(5);
          stored.add(new Stored(new Memory(rows.getString(1), rows.getString(2), rows.getString(3),
              rows.getObject(4, OffsetDateTime.class).toInstant()), unboxed((Object[]) vector.getArray())));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the user's memories", e);
    }
    return stored;
  }

  private int update(String sql, Object... parameters) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot change the user's memories", e);
    }
  }

  static String key(String fact) {
    return fact.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").replaceAll("[.!]+$", "");
  }

  static double cosine(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
  }

  private static Float[] boxed(float[] vector) {
    Float[] boxed = new Float[vector.length];
    for (int i = 0; i < vector.length; i++) {
      boxed[i] = vector[i];
    }
    return boxed;
  }

  private static float[] unboxed(Object[] values) {
    float[] vector = new float[values.length];
    for (int i = 0; i < values.length; i++) {
      vector[i] = ((Number) values[i]).floatValue();
    }
    return vector;
  }

  private static JsonNode json(String text) throws IOException {
    return text == null ? null : JSON.readTree(text);
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? null : node.toString();
  }
}
