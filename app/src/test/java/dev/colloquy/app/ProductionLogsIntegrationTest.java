package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.logstash.logback.encoder.LogstashEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * With COLLOQUY_ENV=production the log is JSON lines with codes and ids, never a tenant's file name or
 * what a parser read from its file: those are the tenant's content, and its owner reads them in the
 * document's status instead. The lines are rendered by the encoder the production log uses.
 */
class ProductionLogsIntegrationTest {

  private static final String FILE_NAME = "Zenith-Merger-Plan.pdf";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.env", "production", "colloquy.llm.model", "offline", "colloquy.llm.extra-models", List.of()));

  @Test
  void aFailedIngestionIsLoggedByCodeAndIdOnly() throws Exception {
    byte[] truncatedPdf = Arrays.copyOf("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        .getBytes(StandardCharsets.US_ASCII), 60);
    List<String> lines;
    String documentId;
    try (CapturedLogs logs = CapturedLogs.capture()) {
      Api.Response accepted = app.api().upload(FILE_NAME, truncatedPdf);
      assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
      documentId = accepted.json().path("document_id").asText();
      JsonNode failed = app.api().settled(documentId);
      assertThat(failed.path("status").asText()).isEqualTo("failed");
      assertThat(failed.path("error_message").asText()).as("the owner reads why").isNotBlank();
      lines = logs.events().stream().map(ProductionLogsIntegrationTest::json).toList();
    }
    assertThat(lines).anyMatch(line -> line.contains(documentId) && line.contains("corrupt_file"));
    for (String line : lines) {
      JsonNode parsed = Api.JSON.readTree(line);
      assertThat(parsed.has("message")).as(line).isTrue();
      assertThat(line).as("a production log line").doesNotContain("Zenith").doesNotContain("Merger")
          .doesNotContain("could not be read as");
      assertThat(parsed.has("stack_trace")).as(line).isFalse();
    }
  }

  /** The line as the production log writes it (logback.xml's LogstashEncoder). */
  private static String json(ch.qos.logback.classic.spi.ILoggingEvent event) {
    LogstashEncoder encoder = new LogstashEncoder();
    encoder.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    encoder.start();
    try {
      return new String(encoder.encode(event), StandardCharsets.UTF_8);
    } finally {
      encoder.stop();
    }
  }
}
