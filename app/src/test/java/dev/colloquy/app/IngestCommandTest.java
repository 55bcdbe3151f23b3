package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import dev.colloquy.mockllm.MockLlmServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code colloquy ingest} straight into a data directory (no server running on it): what it
 * ingested is there for the server that starts on that directory afterwards, a bad file is
 * reported in the summary with a non-zero exit, a folder's files of other types are skipped, and a file
 * named on the command line is tried whatever its type.
 */
class IngestCommandTest {

  @Test
  void ingestsAFolderIntoTheDataDirectoryAndReportsFailures(@TempDir Path dataDir, @TempDir Path docs, @TempDir Path other)
      throws Exception {
    Files.writeString(docs.resolve("faq.md"), "# FAQ\n\n## Opening hours\n\nWe open at nine and close at six.\n");
    Files.writeString(docs.resolve("broken.pdf"), "not a pdf at all");
    Files.writeString(docs.resolve("questions.json"), "{\"questions\": []}");
    Files.createDirectories(docs.resolve("images"));
    Files.write(docs.resolve("images/logo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    Path named = Files.writeString(other.resolve("notes.json"), "{}");
    StringWriter out = new StringWriter();
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(out))
        .execute("ingest", docs.toString(), named.toString(), "--data-dir", dataDir.toString());

    assertThat(exit).isEqualTo(1);
    assertThat(out.toString())
        .contains("Skipping 2 files of other types: " + docs.resolve("images/logo.png") + ", "
            + docs.resolve("questions.json"))
        .contains("[" + "#".repeat(30) + "] 3/3")
        .contains("Ingested 1 of 3 files")
        .contains("broken.pdf: corrupt_file")
        .contains("notes.json: unsupported_type");

    try (MockLlmServer mock = TestColloquy.startMock();
        Colloquy colloquy = TestColloquy.start(mock, dataDir, Map.of())) {
      Api api = TestColloquy.api(colloquy);
      var documents = api.get("/v1/knowledge/list").json().path("documents");
      assertThat(documents.findValuesAsText("filename")).containsExactlyInAnyOrder("faq.md", "broken.pdf");
      for (var document : documents) {
        assertThat(document.path("status").asText()).as(document.toString())
            .isEqualTo(document.path("filename").asText().equals("faq.md") ? "ready" : "failed");
      }
      String sessionId = api.openSession();
      Api.Response turn = api.post("/v1/sessions/" + sessionId + "/turns",
          "{\"message\":\"When do you open?\",\"models\":[\"offline\"]}");
      assertThat(turn.json().path("citations").get(0).path("section").asText()).isEqualTo("Opening hours");
    }
  }
}
