package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.session.ChatSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chat list (GET /chats) from the read tables the projection keeps, on a real PostgreSQL: a
 * user's chats with their character and title, most recently active first; no other user's, no
 * session without a character, no deleted chat.
 */
class JdbcChatListingTest {

  private static final Instant T0 = Instant.parse("2026-11-21T10:00:00Z");

  @RegisterExtension
  static final ReadSideDatabase database = new ReadSideDatabase();
  private static JdbcChatListing chats;

  @BeforeAll
  static void start() throws Exception {
    chats = new JdbcChatListing(dataSource(), Executors.newVirtualThreadPerTaskExecutor());
  }

  @Test
  void aUsersChatsComeWithTheirCharacterAndTitleMostRecentlyActiveFirst() throws Exception {
    apply("c-old", opened("u1", "purplefrog", T0), new ChatSession.SessionRenamed("Fears", T0.plusSeconds(1)));
    apply("c-new", opened("u1", "greenowl", T0.plusSeconds(10)));
    apply("c-old", accepted(T0.plusSeconds(20)));
    apply("other-user", opened("u2", "purplefrog", T0));
    apply("plain-session", opened("u1", null, T0));

    List<ChatRow> listed = list(Optional.of("u1"));

    assertThat(listed).containsExactly(
        new ChatRow("c-old", "u1", "purplefrog", "Fears", T0, T0.plusSeconds(20)),
        new ChatRow("c-new", "u1", "greenowl", null, T0.plusSeconds(10), T0.plusSeconds(10)));
    assertThat(list(Optional.empty())).extracting(ChatRow::chatId)
        .as("a tenant key lists the tenant's chats").containsExactlyInAnyOrder("c-old", "c-new", "other-user");
  }

  @Test
  void aDeletedChatIsNotListedAndAClosedOneIs() throws Exception {
    SessionSummary summary = new SessionSummary(0, 0, Map.of(), T0, T0.plusSeconds(5), 5000);
    apply("deleted", opened("u1", "purplefrog", T0), new ChatSession.SessionDeleted(T0.plusSeconds(5), summary));
    apply("closed", opened("u1", "purplefrog", T0), new ChatSession.SessionClosed("idle", summary, T0.plusSeconds(5)));

    assertThat(list(Optional.of("u1"))).extracting(ChatRow::chatId).containsExactly("closed");
  }

  @Test
  void theListStopsAtItsLimit() throws Exception {
    for (int i = 0; i < 5; i++) {
      apply("c-" + i, opened("u1", "purplefrog", T0.plusSeconds(i)));
    }

    assertThat(chats.chats("acme", Optional.of("u1"), 3).toCompletableFuture().get(10, TimeUnit.SECONDS))
        .extracting(ChatRow::chatId).containsExactly("c-4", "c-3", "c-2");
  }

  private static List<ChatRow> list(Optional<String> userId) throws Exception {
    return chats.chats("acme", userId, 100).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static ChatSession.SessionOpened opened(String userId, String characterId, Instant at) {
    return new ChatSession.SessionOpened("ignored", "acme", userId, null, JsonNodeFactory.instance.objectNode(), at,
        characterId, List.of());
  }

  private static ChatSession.TurnAccepted accepted(Instant at) {
    return new ChatSession.TurnAccepted("t-1", null, "trace", "m-1", "Hello", List.of(new RunSpec("r-1", "openai-compatible", "mock")), at);
  }

  private static void apply(String sessionId, ChatSession.Event... events) throws SQLException {
    try (Connection connection = dataSource().getConnection()) {
      for (ChatSession.Event event : events) {
        new ReadModelUpdates(connection, sessionId).apply(event);
      }
    }
  }

  private static DataSource dataSource() {
    return database.dataSource();
  }
}
