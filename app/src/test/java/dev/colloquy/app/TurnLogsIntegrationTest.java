package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.tenant.NewTenant;
import dev.colloquy.persistence.tenant.TenantStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log lines of a turn, as an operator reads them: every line carries the turn's trace, tenant,
 * session and turn ids, whichever actor or thread wrote it, and names neither the tenant (only its
 * id) nor a user; in production no line carries what the user wrote or what the model answered.
 */
class TurnLogsIntegrationTest {

  private static final String MESSAGE = "Where did the lighthouse keeper hide the brass key?";

  @Test
  void everyLineOfATurnCarriesItsIds(@TempDir Path dataDir) throws Exception {
    try (MockLlmServer mock = TestColloquy.startMock();
        Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of())) {
      NewTenant tenant = new TenantStore(colloquy.database().dataSource()).create("Harbour Lights Ltd");
      String tenantId = tenant.tenant().tenantId();
      Api api = new Api(colloquy.baseUrl(), tenant.key().apiKey());
      String sessionId = api.openSession();
      Turn turn;
      try (CapturedLogs logs = CapturedLogs.capture()) {
        turn = streamTurn(api, sessionId);
        List<ILoggingEvent> turnLines = logs.events().stream()
            .filter(event -> event.getLoggerName().startsWith("dev.colloquy.engine"))
            .toList();
        // The supervisor's, both avatars' and the model adapter's lines (the failing model's, written on its call's own thread).
        assertThat(turnLines).extracting(ILoggingEvent::getFormattedMessage)
            .anyMatch(line -> line.startsWith("Turn started"))
            .anyMatch(line -> line.contains("on model " + TestColloquy.MODEL + " ended completed"))
            .anyMatch(line -> line.contains("on model " + TestColloquy.BROKEN_MODEL + " ended failed"))
            .anyMatch(line -> line.startsWith("The call to model " + TestColloquy.BROKEN_MODEL + " failed"))
            .anyMatch(line -> line.startsWith("Turn ended"));
        for (ILoggingEvent event : turnLines) {
          assertThat(event.getMDCPropertyMap()).as(CapturedLogs.line(event))
              .containsEntry("trace_id", turn.traceId())
              .containsEntry("tenant_id", tenantId)
              .containsEntry("session_id", sessionId)
              .containsEntry("turn_id", turn.turnId())
              .doesNotContainValue(tenant.tenant().name());
          assertThat(event.getMDCPropertyMap().keySet()).as(CapturedLogs.line(event))
              .noneMatch(key -> key.contains("user"));
        }
      }
    }
  }

  @Test
  void inProductionNoLineCarriesTheMessageOrTheAnswer(@TempDir Path dataDir) throws Exception {
    try (MockLlmServer mock = TestColloquy.startMock();
        Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of("colloquy.env", "production"))) {
      assertThat(colloquy.settings().production()).isTrue();
      Api api = TestColloquy.api(colloquy);
      String sessionId = api.openSession();
      try (CapturedLogs logs = CapturedLogs.capture()) {
        Turn turn = streamTurn(api, sessionId);
        Api.Response session = api.get("/v1/sessions/" + sessionId);
        assertThat(session.body()).contains(MESSAGE).contains(turn.answer());
        List<String> lines = logs.events().stream()
            .filter(event -> !event.getLoggerName().startsWith("dev.colloquy.mockllm"))
            .map(CapturedLogs::line)
            .toList();
        assertThat(lines).as("the turn wrote log lines").isNotEmpty();
        assertThat(lines).noneMatch(line -> line.contains(MESSAGE) || line.contains("lighthouse keeper"));
        assertThat(lines).noneMatch(line -> line.contains(turn.answer()));
      }
    }
  }

  private record Turn(String traceId, String turnId, String answer) {}

  /** A turn on the mock and the model that fails, which makes the adapter log from its call's thread. */
  private static Turn streamTurn(Api api, String sessionId) throws Exception {
    try (SseClient stream = api.streamTurn(sessionId,
        Api.turn(MESSAGE, List.of(TestColloquy.MODEL, TestColloquy.BROKEN_MODEL)))) {
      List<SseEvent> events = stream.readToEnd(Duration.ofSeconds(30));
      SseEvent last = events.getLast();
      assertThat(last.event()).isEqualTo("turn.completed");
      assertThat(last.text("text")).isNotBlank();
      return new Turn(last.text("trace_id"), last.text("turn_id"), last.text("text"));
    }
  }
}
