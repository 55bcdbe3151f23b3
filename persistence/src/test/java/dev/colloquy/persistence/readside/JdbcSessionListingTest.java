package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.session.ChatSession;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
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
 * The session list's title search (GET /v1/sessions?q=) on a real PostgreSQL: titles that contain the
 * text in any case, most recently active first, paged with the same cursors as the whole list, only
 * the tenant's and (for a user) the user's own, never a deleted session; what the user types is
 * matched as itself, wildcards included.
 */
class JdbcSessionListingTest {

  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  @RegisterExtension
  static final ReadSideDatabase database = new ReadSideDatabase();
  private static JdbcSessionListing listing;

  @BeforeAll
  static void start() throws Exception {
    listing = new JdbcSessionListing(dataSource(), Executors.newVirtualThreadPerTaskExecutor());
  }

  @Test
  void aTitleSearchIgnoresCaseAndKeepsTheListsOrder() throws Exception {
    session("s-1", "acme", "u1", "Refund for order 42", T0);
    session("s-2", "acme", "u1", "Shipping times", T0.plusSeconds(1));
    session("s-3", "acme", "u1", "REFUNDS and returns", T0.plusSeconds(2));
    session("s-4", "acme", "u1", null, T0.plusSeconds(3));
    session("s-5", "acme", "u1", "Été à Refundville", T0.plusSeconds(4));

    assertThat(ids(list("acme", Optional.empty(), "refund", 100, Optional.empty())))
        .containsExactly("s-5", "s-3", "s-1");
    assertThat(ids(list("acme", Optional.empty(), "ÉTÉ À", 100, Optional.empty()))).containsExactly("s-5");
  }

  @Test
  void aTitleSearchPagesWithTheListsCursors() throws Exception {
    for (int i = 0; i < 7; i++) {
      session("match-" + i, "acme", "u1", "Question " + i + " about invoices", T0.plusSeconds(i * 2L));
      session("other-" + i, "acme", "u1", "Question " + i + " about parcels", T0.plusSeconds(i * 2L + 1));
    }

    List<String> seen = new ArrayList<>();
    Optional<SessionCursor> cursor = Optional.empty();
    int pages = 0;
    do {
      SessionPage page = list("acme", Optional.empty(), "Invoices", 3, cursor);
      assertThat(page.sessions()).hasSizeBetween(1, 3);
      seen.addAll(ids(page));
      cursor = page.next();
      pages++;
    } while (cursor.isPresent() && pages < 10);

    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactly("match-6", "match-5", "match-4", "match-3", "match-2", "match-1", "match-0");
  }

  @Test
  void aTitleSearchStaysInTheTenantAndTheUsersOwnSessionsAndSkipsDeletedOnes() throws Exception {
    session("mine", "acme", "u1", "Billing question", T0);
    session("colleague", "acme", "u2", "Billing question", T0.plusSeconds(1));
    session("other-tenant", "globex", "u1", "Billing question", T0.plusSeconds(2));
    session("deleted", "acme", "u1", "Billing question", T0.plusSeconds(3));
    apply("deleted", new ChatSession.SessionDeleted(T0.plusSeconds(4), new SessionSummary(0, 0, Map.of(), T0, T0, 0)));
    session("closed", "acme", "u1", "Billing question", T0.plusSeconds(5));
    apply("closed", new ChatSession.SessionClosed("idle", new SessionSummary(0, 0, Map.of(), T0, T0, 0), T0.plusSeconds(6)));

    assertThat(ids(list("acme", Optional.of("u1"), "billing", 100, Optional.empty()))).containsExactly("closed", "mine");
    assertThat(ids(list("acme", Optional.empty(), "billing", 100, Optional.empty())))
        .containsExactly("closed", "colleague", "mine");
    assertThat(ids(listing.list("acme", Optional.of("u1"), Optional.of("open"), Optional.of("billing"), 100,
        Optional.empty()).toCompletableFuture().get(10, TimeUnit.SECONDS))).containsExactly("mine");
  }

  @Test
  void wildcardsAndQuotesAreMatchedAsThemselves() throws Exception {
    session("percent", "acme", "u1", "A 100% refund", T0);
    session("underscore", "acme", "u1", "the snake_case names", T0.plusSeconds(1));
    session("plain", "acme", "u1", "A 1000 refund in snakeXcase", T0.plusSeconds(2));
    session("quote", "acme", "u1", "It's O'Brien's', then \\ a backslash", T0.plusSeconds(3));

    assertThat(ids(list("acme", Optional.empty(), "100%", 100, Optional.empty()))).containsExactly("percent");
    assertThat(ids(list("acme", Optional.empty(), "e_c", 100, Optional.empty()))).containsExactly("underscore");
    assertThat(ids(list("acme", Optional.empty(), "%", 100, Optional.empty()))).containsExactly("percent");
    assertThat(ids(list("acme", Optional.empty(), "o'brien's'", 100, Optional.empty()))).containsExactly("quote");
    assertThat(ids(list("acme", Optional.empty(), "\\ a", 100, Optional.empty()))).containsExactly("quote");
  }

  private static SessionPage list(String tenantId, Optional<String> userId, String q, int limit,
      Optional<SessionCursor> after) throws Exception {
    return listing.list(tenantId, userId, Optional.empty(), Optional.of(q), limit, after)
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static List<String> ids(SessionPage page) {
    return page.sessions().stream().map(SessionRow::sessionId).toList();
  }

  /** A session opened at {@code at}, titled {@code title} (none when null) at the same moment. */
  private static void session(String sessionId, String tenantId, String userId, String title, Instant at)
      throws SQLException {
    apply(sessionId, new ChatSession.SessionOpened(sessionId, tenantId, userId, null,
        JsonNodeFactory.instance.objectNode(), at));
    if (title != null) {
      apply(sessionId, new ChatSession.SessionRenamed(title, at));
    }
  }

  private static void apply(String sessionId, ChatSession.Event event) throws SQLException {
    try (Connection connection = dataSource().getConnection()) {
      new ReadModelUpdates(connection, sessionId).apply(event);
    }
  }

  private static DataSource dataSource() {
    return database.dataSource();
  }
}
