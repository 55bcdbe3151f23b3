package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A tenant's open sessions and tokens of a month, from the read tables on a real (embedded) PostgreSQL. */
class JdbcTenantUsageTest {

  private static final YearMonth NOVEMBER = YearMonth.of(2026, 11);

  @RegisterExtension
  static final ReadSideDatabase database = new ReadSideDatabase();
  private static ExecutorService executor;
  private static JdbcTenantUsage usage;

  @BeforeAll
  static void startPostgres() throws Exception {
    executor = Executors.newVirtualThreadPerTaskExecutor();
    usage = new JdbcTenantUsage(dataSource(), executor);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    executor.shutdownNow();
  }

  @Test
  void countsOnlyTheTenantsOpenSessions() throws Exception {
    session("s-1", "acme", "open", "2026-11-02T10:00:00Z", 0);
    session("s-2", "acme", "open", "2026-11-03T10:00:00Z", 0);
    session("s-3", "acme", "closed", "2026-11-03T11:00:00Z", 0);
    session("s-4", "acme", "deleted", "2026-11-03T12:00:00Z", 0);
    session("s-5", "globex", "open", "2026-11-03T13:00:00Z", 0);

    assertThat(usage.openSessions("acme").toCompletableFuture().get()).isEqualTo(2);
    assertThat(usage.openSessions("initech").toCompletableFuture().get()).isZero();
  }

  /**
   * Every new session asks for its tenant's open sessions: the count reads the tenant's open ones, not
   * every session the tenant ever had nor every tenant's open ones.
   */
  @Test
  void theOpenSessionCountReadsOnlyTheOpenSessions() throws Exception {
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("""
          INSERT INTO sessions (session_id, tenant_id, status, created_at, last_activity_at)
          SELECT 'closed-' || n, 'acme', 'closed', now(), now() FROM generate_series(1, 2000) n""");
      statement.execute("""
          INSERT INTO sessions (session_id, tenant_id, status, created_at, last_activity_at)
          SELECT 'other-' || n, 'globex', 'open', now(), now() FROM generate_series(1, 2000) n""");
    }
    for (int i = 1; i <= 3; i++) {
      session("open-" + i, "acme", "open", "2026-11-02T10:00:00Z", 0);
    }
    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("ANALYZE sessions");
    }

    JsonNode plan = database.plan("SELECT count(*) FROM sessions WHERE tenant_id = 'acme' AND status = 'open'");

    assertThat(plan.findValues("Node Type")).extracting(JsonNode::asText).doesNotContain("Seq Scan");
    assertThat(plan.findValues("Rows Removed by Filter").stream().mapToLong(JsonNode::asLong).sum()).isZero();
    assertThat(usage.openSessions("acme").toCompletableFuture().get()).isEqualTo(3);
  }

  @Test
  void sumsTheTokensOfTheTenantsSessionsActiveInTheMonth() throws Exception {
    session("before", "acme", "closed", "2026-10-31T23:59:59Z", 1_000);
    session("first", "acme", "closed", "2026-11-01T00:00:00Z", 150);
    session("last", "acme", "open", "2026-11-30T23:59:59Z", 50);
    session("after", "acme", "open", "2026-12-01T00:00:00Z", 7_000);
    session("foreign", "globex", "open", "2026-11-15T12:00:00Z", 9_000);

    assertThat(usage.tokensUsed("acme", NOVEMBER).toCompletableFuture().get()).isEqualTo(200);
    assertThat(usage.tokensUsed("initech", NOVEMBER).toCompletableFuture().get()).isZero();
  }

  /** A session row whose tokens split into prompt and completion (one in five is completion). */
  private static void session(String sessionId, String tenantId, String status, String lastActivity, long tokens)
      throws SQLException {
    Instant at = Instant.parse(lastActivity);
    try (Connection connection = dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement("""
            INSERT INTO sessions (session_id, tenant_id, status, created_at, last_activity_at, prompt_tokens,
              completion_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)""")) {
      insert.setString(1, sessionId);
      insert.setString(2, tenantId);
      insert.setString(3, status);
      insert.setObject(4, at.atOffset(ZoneOffset.UTC));
      insert.setObject(5, at.atOffset(ZoneOffset.UTC));
      insert.setLong(6, tokens - tokens / 5);
      insert.setLong(7, tokens / 5);
      insert.executeUpdate();
    }
  }

  private static DataSource dataSource() {
    return database.dataSource();
  }
}
