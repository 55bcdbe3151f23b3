package dev.colloquy.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.persistence.readside.BillingPeriod;
import dev.colloquy.persistence.readside.BillingRecord;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A tenant's billing records for a period, as the JSON body of {@code GET /v1/billing} or as CSV. */
public record BillingReport(String tenantId, Instant from, Instant until, List<Row> records) {

  static final String CSV_HEADER = "session_id,kind,occurred_at,reason,turns,completed_turns,prompt_tokens,"
      + "completion_tokens,cost_usd,duration_ms,usage_by_model";

  /** One record; the totals are null on a {@code session_start}. */
  public record Row(String sessionId, String kind, Instant occurredAt, String reason, Integer turns,
      Integer completedTurns, Long promptTokens, Long completionTokens, Double costUsd, Long durationMs,
      JsonNode usageByModel) {}

  public static BillingReport of(String tenantId, BillingPeriod period, List<BillingRecord> records) {
    return new BillingReport(tenantId, period.from().orElse(null), period.until().orElse(null),
        records.stream().map(BillingReport::row).toList());
  }

  private static Row row(BillingRecord record) {
    return new Row(record.sessionId(), record.kind(), record.occurredAt(), record.reason(), record.turns(),
        record.completedTurns(), record.promptTokens(), record.completionTokens(), record.costUsd(),
        record.durationMs(), usage(record.usageByModel()));
  }

  private static JsonNode usage(String json) {
    if (json == null) {
      return null;
    }
    try {
      return Json.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String json() {
    try {
      return Json.MAPPER.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A header line, then one line per record; usage_by_model is its JSON object in one field. */
  public String csv() {
    return Stream.concat(Stream.of(CSV_HEADER), records.stream().map(BillingReport::csvLine))
        .collect(Collectors.joining("\r\n", "", "\r\n"));
  }

  private static String csvLine(Row row) {
    return Stream.of(row.sessionId(), row.kind(), row.occurredAt(), row.reason(), row.turns(), row.completedTurns(),
            row.promptTokens(), row.completionTokens(), row.costUsd(), row.durationMs(), row.usageByModel())
        .map(BillingReport::csvField)
        .collect(Collectors.joining(","));
  }

  private static String csvField(Object value) {
    if (value == null) {
      return "";
    }
    String text = value.toString();
    if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
      return "\"" + text.replace("\"", "\"\"") + "\"";
    }
    return text;
  }
}
