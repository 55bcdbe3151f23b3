package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as a separate process: results on stdout, nothing but problems on stderr, clean exits. */
class QuietToolsTest {

  /** What the JVM says once when the launcher enables the Vector API for Lucene. */
  private static final String VECTOR_MODULE_NOTICE = "WARNING: Using incubator modules: jdk.incubator.vector";

  @TempDir
  Path scratch;

  @Test
  void mockLlmStopsWithExitZeroOnSigtermAndLogsNoWarnings() throws Exception {
    Path errors = scratch.resolve("stderr.txt");
    Process mock = colloquy(errors, "mock-llm", "--port", "0");
    try (BufferedReader out = new BufferedReader(new InputStreamReader(mock.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).startsWith("mock-llm listening on http://127.0.0.1:");
      mock.destroy(); // SIGTERM
      assertThat(mock.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(mock.exitValue()).isZero();
    assertThat(Files.readString(errors)).doesNotContain("SLF4J").doesNotContain("Exception");
  }

  @Test
  void aFailingCommandPrintsOneLineAndNoLogs() throws Exception {
    Path errors = scratch.resolve("stderr.txt");
    Process replay = colloquy(errors, "replay", "--data-dir", scratch.resolve("nowhere").toString(), "abc");
    String out = new String(replay.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(replay.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(replay.exitValue()).isEqualTo(1);
    assertThat(out).isEmpty();
    assertThat(Files.readAllLines(errors)).filteredOn(line -> !line.equals(VECTOR_MODULE_NOTICE)).containsExactly(
        "colloquy: no Colloquy data in " + scratch.resolve("nowhere") + " (give --data-dir, or run from the folder that holds ./data)");
  }

  @Test
  void reingestingAFilePrintsProgressAndResultOnlyAndLeavesAHealthyIndex() throws Exception {
    Path file = Files.writeString(scratch.resolve("handbook.md"), "# Refunds\n\nRefunds are paid within 14 days.\n");
    String dataDir = scratch.resolve("data").toString();
    for (int run = 1; run <= 2; run++) {
      Path errors = scratch.resolve("stderr-" + run + ".txt");
      Process ingest = colloquy(errors, "ingest", "--data-dir", dataDir, file.toString());
      String out = new String(ingest.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(ingest.waitFor(120, TimeUnit.SECONDS)).isTrue();

      assertThat(ingest.exitValue()).as(out + Files.readString(errors)).isZero();
      assertThat(out).contains("handbook.md: ready").contains("Ingested 1 of 1 files");
      assertThat(Files.readAllLines(errors)).as("stderr of run %d", run)
          .allMatch(line -> line.equals(VECTOR_MODULE_NOTICE));
    }
  }

  private static Process colloquy(Path stderr, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), Cli.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(stderr.toFile()).start();
  }
}
