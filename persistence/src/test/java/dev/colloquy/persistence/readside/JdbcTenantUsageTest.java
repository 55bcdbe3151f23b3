package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionTags;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
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

    JsonNode plan = database.plan(JdbcTenantUsage.OPEN_SESSIONS, "acme");

    assertThat(plan.findValues("Node Type")).extracting(JsonNode::asText).doesNotContain("Seq Scan");
    assertThat(plan.findValues("Rows Removed by Filter").stream().mapToLong(JsonNode::asLong).sum()).isZero();
    assertThat(usage.openSessions("acme").toCompletableFuture().get()).isEqualTo(3);
  }

  @Test
  void countsTheTokensOfTheTenantsTurnsThatEndedInTheMonth() throws Exception {
    assertThat(Set.of(SessionTags.of("a-1"), SessionTags.of("a-2"))).as("two projection slices").hasSize(2);
    projected("a-1", "acme", turn("2026-10-31T23:59:59Z", 1_000), turn("2026-11-01T00:00:00Z", 150));
    projected("a-2", "acme", turn("2026-11-30T23:59:59Z", 50), turn("2026-12-01T00:00:00Z", 7_000));
    projected("g-1", "globex", turn("2026-11-15T12:00:00Z", 9_000));

    assertThat(usage.tokensUsed("acme", NOVEMBER).toCompletableFuture().get()).isEqualTo(200);
    assertThat(usage.tokensUsed("acme", NOVEMBER.minusMonths(1)).toCompletableFuture().get()).isEqualTo(1_000);
    assertThat(usage.tokensUsed("acme", NOVEMBER.plusMonths(1)).toCompletableFuture().get()).isEqualTo(7_000);
    assertThat(usage.tokensUsed("globex", NOVEMBER).toCompletableFuture().get()).isEqualTo(9_000);
    assertThat(usage.tokensUsed("initech", NOVEMBER).toCompletableFuture().get()).isZero();
  }

  /**
   * The budget is asked on every turn of a tenant that has one: what it reads does not grow with the
   * sessions the tenant had that month (it summed them all before the running total).
   */
  @Test
  void theMonthsTokensReadAFewRowsHoweverManySessionsTheTenantHad() throws Exception {
    for (int i = 1; i <= 200; i++) {
      projected("many-" + i, "acme", turn("2026-11-10T10:00:00Z", 10));
    }
    projected("other", "globex", turn("2026-11-10T10:00:00Z", 10));

    JsonNode plan = database.plan(JdbcTenantUsage.MONTHS_TOKENS, "acme", "2026-11-01");

    long rowsRead = plan.findValues("Actual Rows").stream().mapToLong(JsonNode::asLong).max().orElseThrow()
        + plan.findValues("Rows Removed by Filter").stream().mapToLong(JsonNode::asLong).sum();
    assertThat(rowsRead).isLessThanOrEqualTo(2L * SessionTags.COUNT);
    assertThat(usage.tokensUsed("acme", NOVEMBER).toCompletableFuture().get()).isEqualTo(2_000);
  }

  /**
   * Sessions projected before the running total existed kept only their sums: the migration that
   * fills it on upgrade counts each in the month of its last activity, as the budget did until then.
   */
  @Test
  void turnsProjectedBeforeTheRunningTotalCountInTheirSessionsLastMonth() throws Exception {
    session("before", "acme", "closed", "2026-10-31T23:59:59Z", 1_000);
    session("first", "acme", "closed", "2026-11-01T00:00:00Z", 150);
    session("last", "acme", "open", "2026-11-30T23:59:59Z", 50);
    session("after", "acme", "open", "2026-12-01T00:00:00Z", 7_000);
    session("foreign", "globex", "open", "2026-11-15T12:00:00Z", 9_000);

    try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
      statement.execute(ReadSide.script("db/migration/V93__tenant_monthly_tokens_until_now.sql"));
    }
    projected("later", "acme", turn("2026-11-20T08:00:00Z", 5));

    assertThat(usage.tokensUsed("acme", NOVEMBER).toCompletableFuture().get()).isEqualTo(205);
    assertThat(usage.tokensUsed("acme", NOVEMBER.plusMonths(1)).toCompletableFuture().get()).isEqualTo(7_000);
    assertThat(usage.tokensUsed("initech", NOVEMBER).toCompletableFuture().get()).isZero();
  }

  /** A turn that ended at {@code endedAt} having used {@code tokens} (one in five of them completion). */
  private record Turn(Instant endedAt, long tokens) {}

  private static Turn turn(String endedAt, long tokens) {
    return new Turn(Instant.parse(endedAt), tokens);
  }

  /** A session of {@code tenantId} opened and its turns accepted and completed, through the projection's handler. */
  private static void projected(String sessionId, String tenantId, Turn... turns) throws SQLException {
    try (Connection connection = dataSource().getConnection()) {
      ReadModelUpdates updates = new ReadModelUpdates(connection, sessionId);
      Instant opened = turns[0].endedAt().minusSeconds(60);
      updates.apply(new ChatSession.SessionOpened(sessionId, tenantId, null, "support",
          JsonNodeFactory.instance.objectNode(), opened));
      int n = 0;
      for (Turn turn : turns) {
        String turnId = sessionId + "-t" + ++n;
        updates.apply(new ChatSession.TurnAccepted(turnId, null, "trace-" + turnId, turnId + "-question", "Hello?",
            List.of(new RunSpec("r-main", "openai-compatible", "gpt-main")), turn.endedAt().minusSeconds(1)));
        Usage used = new Usage(turn.tokens() - turn.tokens() / 5, turn.tokens() / 5, 0.001);
        RunOutcome run = new RunOutcome("r-main", "openai-compatible", "gpt-main", RunOutcome.Status.COMPLETED,
            "Hello.", used, 1000, null, null);
        updates.apply(new ChatSession.TurnCompleted(turnId, turnId + "-answer",
            new TurnOutcome(List.of(run), List.of(), 0.8, List.of(), List.of(), 1000), turn.endedAt()));
      }
    }
  }

  /** A session row as the projection left it before the running total, whose tokens split into prompt and completion (one in five is completion). */
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
