package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.app.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Documents go in through the HTTP API (and the command line) and come back as citations of the
 * right section in a streamed turn; versions replace each other, deletes hide at once, bad files fail
 * cleanly while the server stays healthy.
 */
class KnowledgeIntegrationTest {

  private static final String POLICIES = """
      # Customer Policies

      ## Refunds

      Customers may request a full refund within 30 days of purchase. Refunds are paid back to the
      original payment method within 5 business days. Opened software cannot be refunded.

      ## Shipping

      Orders ship within 2 business days. Express shipping costs 15 euros and arrives the next day.

      ## Warranty

      All hardware carries a two year warranty covering manufacturing defects. Damage from drops or
      water is not covered by the warranty.
      """;

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.knowledge.ingestion.max-upload", "64KiB",
        "colloquy.knowledge.ingestion.max-archive-entries", 100,
        "colloquy.knowledge.ingestion.max-archive-uncompressed", "1MiB",
        "colloquy.llm.model", "offline", "colloquy.llm.extra-models", List.of()));

  private static Api.Response upload(String fileName, byte[] content) throws Exception {
    return app.api().upload(fileName, content);
  }

  private static JsonNode settled(String documentId) throws Exception {
    return app.api().settled(documentId);
  }

  private static String ingest(String fileName, String text) throws Exception {
    Api.Response accepted = upload(fileName, text.getBytes(StandardCharsets.UTF_8));
    assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
    assertThat(accepted.json().path("status").asText()).isEqualTo("processing");
    String documentId = accepted.json().path("document_id").asText();
    assertThat(settled(documentId).path("status").asText()).isEqualTo("ready");
    return documentId;
  }

  private static List<SseEvent> ask(String question) throws Exception {
    try (SseClient stream = app.api().streamTurn(app.api().openSession(), Api.turn(question))) {
      return stream.readToEnd(Duration.ofSeconds(30));
    }
  }

  private static JsonNode citations(List<SseEvent> events) {
    return events.stream().filter(e -> e.event().equals("retrieval")).findFirst().orElseThrow().json().path("citations");
  }

  @Test
  void aStreamedAnswerCitesTheSectionThatHoldsIt() throws Exception {
    String documentId = ingest("policies.md", POLICIES);
    List<SseEvent> events = ask("How many days do I have to get my money back?");
    JsonNode first = citations(events).get(0);
    assertThat(first.path("document_id").asText()).isEqualTo(documentId);
    assertThat(first.path("source").asText()).isEqualTo("policies.md");
    assertThat(first.path("section").asText()).isEqualTo("Refunds");
    String answer = events.getLast().text("text");
    assertThat(answer).contains("within 30 days");

    String sessionId = events.getFirst().text("session_id");
    JsonNode assistant = app.api().session(sessionId).path("messages").get(1);
    assertThat(assistant.path("citations").get(0).path("section").asText()).isEqualTo("Refunds");
  }

  @Test
  void aCitationOpensItsPassageUntilTheDocumentIsDeleted() throws Exception {
    String documentId = ingest("lighthouse.md", """
        # Lighthouse keeping

        ## The lamp

        The lamp of the Farol lighthouse is lit every evening at sunset by the keeper on duty.

        ## The oil

        The keeper refills the lamp's paraffin oil every Tuesday morning from the store in the cellar.
        """);
    JsonNode cited = null;
    for (JsonNode citation : citations(ask("When is the paraffin oil of the lighthouse lamp refilled?"))) {
      if (citation.path("document_id").asText().equals(documentId) && cited == null) {
        cited = citation;
      }
    }
    assertThat(cited).as("the lighthouse handbook is cited").isNotNull();
    String path = "/v1/knowledge/" + documentId + "/chunks/" + cited.path("chunk_index").asInt();

    Api.Response passage = app.api().get(path);

    assertThat(passage.status()).as(passage.body()).isEqualTo(200);
    JsonNode body = passage.json();
    assertThat(body.path("document_id").asText()).isEqualTo(documentId);
    assertThat(body.path("filename").asText()).isEqualTo("lighthouse.md");
    assertThat(body.path("version").asInt()).isEqualTo(1);
    assertThat(body.path("section").asText()).isEqualTo(cited.path("section").asText());
    assertThat(body.path("chunk_index").asInt()).isEqualTo(cited.path("chunk_index").asInt());
    assertThat(body.path("element_type").asText()).isNotBlank();
    assertThat(body.path("text").asText()).contains("paraffin oil every Tuesday morning");

    for (String bad : List.of(documentId + "/chunks/999", documentId + "/chunks/-1", documentId + "/chunks/abc",
        documentId + "/chunks/1.5", documentId + "/chunks/99999999999", UUID.randomUUID() + "/chunks/0",
        "not-a-uuid/chunks/0")) {
      assertPassageNotFound(app.api().get("/v1/knowledge/" + bad), bad);
    }

    assertThat(app.api().send("DELETE", "/v1/knowledge/" + documentId, null).status()).isEqualTo(200);
    assertPassageNotFound(app.api().get(path), "a deleted document's passage");
  }

  private static void assertPassageNotFound(Api.Response response, String what) {
    assertThat(response.status()).as(what + ": " + response.body()).isEqualTo(404);
    assertThat(response.json().at("/error/code").asText()).as(what).isEqualTo("PASSAGE_NOT_FOUND");
    assertThat(response.json().at("/error/message").asText()).as(what).startsWith("Passage not found");
    assertThat(response.json().at("/error/trace_id").asText()).as(what).hasSize(32);
  }

  @Test
  void uploadingAFileNameAgainReplacesTheOldVersionAndDeleteHidesItAtOnce() throws Exception {
    String first = ingest("returns.txt", "Returns policy. Items can be returned within 14 days with the receipt.");
    String second = ingest("returns.txt", "Returns policy. Items can be returned within 60 days, no receipt needed.");
    JsonNode list = app.api().get("/v1/knowledge/list").json().path("documents");
    assertThat(list.findValuesAsText("id")).contains(second).doesNotContain(first);
    assertThat(app.api().get("/v1/knowledge/" + second + "/status").json().path("version").asInt()).isEqualTo(2);

    String answer = ask("How many days to return an item?").getLast().text("text");
    assertThat(answer).contains("60 days").doesNotContain("14 days");

    Api.Response deleted = app.api().send("DELETE", "/v1/knowledge/" + second, null);
    assertThat(deleted.status()).isEqualTo(200);
    assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
    assertThat(citations(ask("How many days to return an item?")).findValuesAsText("document_id"))
        .doesNotContain(second, first);
    assertThat(app.api().send("DELETE", "/v1/knowledge/" + second, null).status()).isEqualTo(404);
  }

  @Test
  void badFilesAreRefusedOrFailWithoutHarm() throws Exception {
    Api.Response tooLarge = upload("big.txt", "x".repeat(70 * 1024).getBytes(StandardCharsets.UTF_8));
    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(tooLarge.json().path("error").path("code").asText()).isIn("FILE_TOO_LARGE", "REQUEST_TOO_LARGE");

    Api.Response unsupported = upload("tool.exe", new byte[] {0x4d, 0x5a, 0, 1});
    assertThat(unsupported.status()).isEqualTo(415);
    assertThat(unsupported.json().path("error").path("code").asText()).isEqualTo("UNSUPPORTED_FILE_TYPE");

    Api.Response corrupt = upload("broken.docx", "this is not a zip archive".getBytes(StandardCharsets.UTF_8));
    assertThat(corrupt.status()).isEqualTo(202);
    JsonNode failed = settled(corrupt.json().path("document_id").asText());
    assertThat(failed.path("status").asText()).isEqualTo("failed");
    assertThat(failed.path("error_code").asText()).isEqualTo("corrupt_file");
    assertThat(failed.path("chunk_count").asInt()).isZero();

    for (byte[] bomb : List.of(zipWithEntries(200, 0), zipWithEntries(1, 5 * 1024 * 1024))) {
      Api.Response accepted = upload("bomb.docx", bomb);
      assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
      JsonNode bombed = settled(accepted.json().path("document_id").asText());
      assertThat(bombed.path("error_code").asText()).isEqualTo("decompression_bomb");
    }

    Api.Response notMultipart = app.api().send("POST", "/v1/knowledge/ingest", "{}");
    assertThat(notMultipart.status()).isEqualTo(415);
    assertThat(notMultipart.json().path("error").path("code").asText()).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
    Api.Response noFile = app.api().send("POST", "/v1/knowledge/ingest", "--b\r\nContent-Disposition: form-data; "
        + "name=\"document_type\"\r\n\r\nfaq\r\n--b--\r\n", "Content-Type", "multipart/form-data; boundary=b");
    assertThat(noFile.status()).as(noFile.body()).isEqualTo(400);
    assertThat(noFile.json().path("error").path("code").asText()).isEqualTo("FIELD_REQUIRED");
    assertThat(app.api().get("/v1/knowledge/" + UUID.randomUUID() + "/status").status()).isEqualTo(404);
    assertThat(app.api().get("/v1/knowledge/not-an-id/status").json().path("error").path("code").asText())
        .isEqualTo("DOCUMENT_NOT_FOUND");
    assertThat(app.api().get("/ready").status()).isEqualTo(200);
  }

  /** A DOCX-named zip of many entries, or of entries that inflate far beyond their compressed size. */
  private static byte[] zipWithEntries(int entries, int bytesEach) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      for (int i = 0; i < entries; i++) {
        zip.putNextEntry(new ZipEntry("word/part" + i + ".xml"));
        zip.write(new byte[bytesEach]);
        zip.closeEntry();
      }
    }
    return bytes.toByteArray();
  }

  @Test
  void theCommandLineIngestsFoldersIntoARunningServer(@TempDir Path folder) throws Exception {
    Files.writeString(folder.resolve("hours.md"), "# Opening hours\n\nThe shop opens at 9 and closes at 18.\n");
    Files.createDirectories(folder.resolve("more"));
    Files.writeString(folder.resolve("more/contact.txt"), "Call us on 555-0100 for help with orders.\n");
    StringWriter out = new StringWriter();
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(out))
        .execute("ingest", folder.toString(), "--server", app.colloquy().baseUrl(), "--api-key", app.api().apiKey());
    assertThat(exit).as(out.toString()).isZero();
    assertThat(out.toString()).contains("2/2").contains("Ingested 2 of 2 files");
    assertThat(app.api().get("/v1/knowledge/list").json().path("documents").findValuesAsText("filename"))
        .contains("hours.md", "contact.txt");
  }
}
