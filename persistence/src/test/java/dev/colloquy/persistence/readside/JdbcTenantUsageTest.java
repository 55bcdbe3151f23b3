package dev.colloquy.persistence.readside;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.EscalationReason;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionTags;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
    opened("s-1", "acme");
    opened("s-2", "acme");
    opened("s-3", "acme");
    apply("s-3", new ChatSession.SessionClosed("idle", SUMMARY, T0.plusSeconds(60)));
    opened("s-4", "acme");
    apply("s-4", new ChatSession.SessionDeleted(T0.plusSeconds(60), SUMMARY));
    opened("s-5", "globex");

    assertThat(usage.openSessions("acme").toCompletableFuture().get()).isEqualTo(2);
    assertThat(usage.openSessions("globex").toCompletableFuture().get()).isEqualTo(1);
    assertThat(usage.openSessions("initech").toCompletableFuture().get()).isZero();
  }

  /**
   * The count follows the session's row through every change of its status, whichever projection slice
   * the sessions are in, and an event applied twice moves it once.
   */
  @Test
  void theOpenSessionCountIsTheTenantsOpenRowsThroughEveryChangeOfStatus() throws Exception {
    assertThat(Set.of(SessionTags.of("life-a"), SessionTags.of("life-b"))).as("two projection slices").hasSize(2);
    List<Runnable> steps = List.of(
        () -> opened("life-a", "hooli"),
        () -> opened("life-b", "hooli"),
        () -> opened("life-b", "hooli"),
        () -> apply("life-a", new ChatSession.SessionEscalated("t-1", EscalationReason.USER_REQUESTED, T0.plusSeconds(1))),
        () -> apply("life-a", new ChatSession.SessionHandedBack(T0.plusSeconds(2))),
        () -> apply("life-b", new ChatSession.SessionClosed("idle", SUMMARY, T0.plusSeconds(3))),
        () -> apply("life-b", new ChatSession.SessionClosed("idle", SUMMARY, T0.plusSeconds(3))),
        () -> apply("life-b", new ChatSession.SessionReopened("t-2", T0.plusSeconds(4))),
        () -> apply("life-a", new ChatSession.SessionEscalated("t-3", EscalationReason.AGENT_REQUESTED, T0.plusSeconds(5))),
        () -> apply("life-a", new ChatSession.SessionClosed("idle", SUMMARY, T0.plusSeconds(6))),
        () -> apply("life-b", new ChatSession.SessionDeleted(T0.plusSeconds(7), SUMMARY)),
        () -> apply("life-a", new ChatSession.SessionDeleted(T0.plusSeconds(8), SUMMARY)));
    List<Long> counted = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    for (Runnable step : steps) {
      step.run();
      counted.add(usage.openSessions("hooli").toCompletableFuture().get());
      rows.add(openRows("hooli"));
    }
    assertThat(counted).isEqualTo(rows).containsExactly(1L, 2L, 2L, 1L, 2L, 1L, 1L, 2L, 1L, 1L, 0L, 0L);
  }

  /**
   * Every new session asks for its tenant's open sessions: what it reads does not grow with the tenant's
   * open sessions (it counted them all before the running count).
   */
  @Test
  void theOpenSessionCountReadsAFewRowsHoweverManySessionsTheTenantHasOpen() throws Exception {
    for (int i = 1; i <= 200; i++) {
      opened("many-open-" + i, "initrode");
    }
    opened("other-open", "globex");

    JsonNode plan = database.plan(JdbcTenantUsage.OPEN_SESSIONS, "initrode");

    assertThat(rowsRead(plan)).isLessThanOrEqualTo(2L * SessionTags.COUNT);
    assertThat(usage.openSessions("initrode").toCompletableFuture().get()).isEqualTo(200);
  }

  /** Sessions open before the running count existed are counted once by the migration that adds it. */
  @Test
  void sessionsOpenBeforeTheRunningCountAreCountedOnUpgrade() throws Exception {
    session("up-1", "umbrella", "open", "2026-11-02T10:00:00Z", 0);
    session("up-2", "umbrella", "open", "2026-11-02T10:00:00Z", 0);
    session("up-3", "umbrella", "closed", "2026-11-02T10:00:00Z", 0);
    session("up-4", "umbrella", "escalated", "2026-11-02T10:00:00Z", 0);

    database.migrate("db/migration/V96__tenant_open_sessions_until_now.sql");
    assertThat(usage.openSessions("umbrella").toCompletableFuture().get()).isEqualTo(2);

    apply("up-1", new ChatSession.SessionClosed("idle", SUMMARY, T0.plusSeconds(60)));
    opened("up-5", "umbrella");
    assertThat(usage.openSessions("umbrella").toCompletableFuture().get()).isEqualTo(2).isEqualTo(openRows("umbrella"));
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

    assertThat(rowsRead(plan)).isLessThanOrEqualTo(2L * SessionTags.COUNT);
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

    database.migrate("db/migration/V93__tenant_monthly_tokens_until_now.sql");
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

  private static final Instant T0 = Instant.parse("2026-11-02T10:00:00Z");
  private static final SessionSummary SUMMARY = new SessionSummary(0, 0, Map.of(), T0, T0, 0);

  /** A session of {@code tenantId} opened, through the projection's handler. */
  private static void opened(String sessionId, String tenantId) {
    apply(sessionId, new ChatSession.SessionOpened(sessionId, tenantId, null, "support",
        JsonNodeFactory.instance.objectNode(), T0));
  }

  /** {@code event} of session {@code sessionId}, through the projection's handler. */
  private static void apply(String sessionId, ChatSession.Event event) {
    try (Connection connection = dataSource().getConnection()) {
      new ReadModelUpdates(connection, sessionId).apply(event);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The tenant's rows of open sessions, counted. */
  private static long openRows(String tenantId) throws SQLException {
    try (Connection connection = dataSource().getConnection();
        PreparedStatement count = connection.prepareStatement(
            "SELECT count(*) FROM sessions WHERE tenant_id = ? AND status = 'open'")) {
      count.setString(1, tenantId);
      try (ResultSet rows = count.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  private static DataSource dataSource() {
    return database.dataSource();
  }

  /** The rows a query's plan read: the most any node returned, and every row its filters removed. */
  private static long rowsRead(JsonNode plan) {
    return plan.findValues("Actual Rows").stream().mapToLong(JsonNode::asLong).max().orElseThrow()
        + plan.findValues("Rows Removed by Filter").stream().mapToLong(JsonNode::asLong).sum();
  }
}
