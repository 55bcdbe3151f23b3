package dev.colloquy.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What a user sees from the command line when something is wrong: one line and a non-zero exit. */
class CliTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return new CommandLine(new Cli()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .setExecutionExceptionHandler(Cli::oneLine).execute(args);
  }

  @AfterEach
  void clearProperties() {
    System.clearProperty("colloquy.http.port");
    System.clearProperty("colloquy.llm.base-url");
  }

  @Test
  void anInvalidSettingStopsTheStartWithOneLineNamingKeyAndVariable() {
    System.setProperty("colloquy.http.port", "not-a-port");
    assertThat(run("serve")).isEqualTo(1);
    assertThat(err.toString().strip())
        .startsWith("colloquy: Invalid setting colloquy.http.port (env COLLOQUY_HTTP_PORT):")
        .doesNotContain("\n").doesNotContain("Exception");
  }

  @Test
  void aModelEndpointWithoutAModelIsRefused() {
    System.setProperty("colloquy.llm.base-url", "http://127.0.0.1:9/v1");
    assertThat(run("serve")).isEqualTo(1);
    assertThat(err.toString()).contains("colloquy.llm.model (env COLLOQUY_LLM_MODEL): is required");
  }

  @Test
  void everyCommandHasHelp() {
    for (String command : new String[] {"serve", "ingest", "replay", "mock-llm", "projections"}) {
      out.getBuffer().setLength(0);
      assertThat(run(command, "--help")).as(command).isZero();
      assertThat(out.toString()).as(command).contains("Usage: colloquy " + command);
    }
  }

  @Test
  void replayOfAnUnknownSessionSaysSo() {
    assertThat(run("replay", "--server", "http://127.0.0.1:9", "x")).isEqualTo(1);
    assertThat(err.toString()).startsWith("colloquy: ");
  }
}
