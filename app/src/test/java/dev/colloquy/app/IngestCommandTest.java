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
 * ingested is there for the server that starts on that directory afterwards, and a bad file is
 * reported in the summary with a non-zero exit.
 */
class IngestCommandTest {

  @Test
  void ingestsAFolderIntoTheDataDirectoryAndReportsFailures(@TempDir Path dataDir, @TempDir Path docs) throws Exception {
    Files.writeString(docs.resolve("faq.md"), "# FAQ\n\n## Opening hours\n\nWe open at nine and close at six.\n");
    Files.writeString(docs.resolve("broken.pdf"), "not a pdf at all");
    StringWriter out = new StringWriter();
    int exit = new CommandLine(new Cli()).setOut(new PrintWriter(out))
        .execute("ingest", docs.toString(), "--data-dir", dataDir.toString());

    assertThat(exit).isEqualTo(1);
    assertThat(out.toString())
        .contains("[" + "#".repeat(30) + "] 2/2")
        .contains("Ingested 1 of 2 files")
        .contains("broken.pdf: corrupt_file");

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
