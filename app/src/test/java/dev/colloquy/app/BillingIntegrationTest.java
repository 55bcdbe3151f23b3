package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** Billing records read over HTTP and with {@code colloquy billing --server}, on a real node. */
class BillingIntegrationTest {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @Test
  void aClosedSessionsStartAndEndAreBilledInJsonAndCsv() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("Bill me"));
    assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    assertThat(api.post("/v1/sessions/" + sessionId + "/close", null).status()).isEqualTo(200);

    String month = YearMonth.now(ZoneOffset.UTC).toString();
    ReadTables.await("the session's end is billed", Duration.ofSeconds(20),
        () -> records(api.get("/v1/billing?period=" + month).json(), sessionId).size() == 2);

    List<JsonNode> records = records(api.get("/v1/billing?period=" + month).json(), sessionId);
    assertThat(records).extracting(r -> r.path("kind").asText()).containsExactly("session_start", "session_end");
    JsonNode end = records.get(1);
    assertThat(end.path("reason").asText()).isEqualTo("closed");
    assertThat(end.path("turns").asInt()).isEqualTo(1);
    assertThat(end.path("completion_tokens").asLong()).isPositive();
    assertThat(end.path("usage_by_model").isObject()).isTrue();

    String today = LocalDate.now(ZoneOffset.UTC).toString();
    Api.Response csv = api.send("GET", "/v1/billing?from=" + today + "&to=" + today, null, "Accept", "text/csv");
    assertThat(csv.status()).isEqualTo(200);
    assertThat(csv.contentType()).startsWith("text/csv");
    assertThat(csv.body().lines().findFirst()).contains(
        "session_id,kind,occurred_at,reason,turns,completed_turns,prompt_tokens,completion_tokens,cost_usd,duration_ms,usage_by_model");
    assertThat(csv.body().lines().filter(line -> line.startsWith(sessionId + ","))).hasSize(2);
    assertThat(api.get("/v1/billing?format=csv").body()).contains(sessionId + ",session_end,");

    String lastYear = YearMonth.now(ZoneOffset.UTC).minusYears(1).toString();
    assertThat(records(api.get("/v1/billing?period=" + lastYear).json(), sessionId)).isEmpty();

    StringWriter out = new StringWriter();
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(out)).setErr(new PrintWriter(new StringWriter()))
        .execute("billing", "--server", app.colloquy().baseUrl(), "--api-key", api.apiKey(), "--period", month);
    assertThat(exit).isZero();
    assertThat(out.toString()).startsWith("session_id,kind,").containsPattern(sessionId + ",session_end,[^,]+,closed,1,");
  }

  @Test
  void badParametersAreRefusedWithTheErrorBody() throws Exception {
    Api api = app.api();
    for (String query : List.of("period=2025-13", "from=yesterday", "from=2025-02-01&to=2025-01-01",
        "period=2025-01&from=2025-01-01", "format=xml")) {
      Api.Response refused = api.get("/v1/billing?" + query);
      assertThat(refused.status()).as(query).isEqualTo(400);
      assertThat(refused.json().at("/error/code").asText()).as(query).isEqualTo("INVALID_QUERY");
      assertThat(refused.json().at("/error/message").asText()).as(query).isNotBlank();
      assertThat(refused.json().at("/error/trace_id").asText()).as(query).hasSize(32);
    }
  }

  private static List<JsonNode> records(JsonNode report, String sessionId) {
    return StreamSupport.stream(report.path("records").spliterator(), false)
        .filter(record -> record.path("session_id").asText().equals(sessionId))
        .toList();
  }
}
