package dev.colloquy.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What a user sees from the command line when something is wrong: one line and a non-zero exit. */
class CliTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return new CommandLine(new Cli()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .setExecutionExceptionHandler(Cli::oneLine).execute(args);
  }

  @TempDir
  Path scratch;

  @AfterEach
  void clearProperties() {
    System.clearProperty("colloquy.http.port");
    System.clearProperty("colloquy.llm.base-url");
    System.clearProperty("pekko.remote.artery.canonical.port");
    System.clearProperty("colloquy.admin.token");
  }

  private String oneLineOfErr() {
    String text = err.toString().strip();
    assertThat(text).startsWith("colloquy: ").doesNotContain("\n").doesNotContain("Exception").doesNotContain("null");
    return text;
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
    for (String command : new String[] {"serve", "ingest", "replay", "billing", "tenants", "mock-llm", "projections"}) {
      out.getBuffer().setLength(0);
      assertThat(run(command, "--help")).as(command).isZero();
      assertThat(out.toString()).as(command).contains("Usage: colloquy " + command);
    }
  }

  @Test
  void everyHelpParagraphIsAFinishedSentence() {
    assertFinished(new CommandLine(new Cli()));
  }

  private static void assertFinished(CommandLine command) {
    for (String paragraph : command.getCommandSpec().usageMessage().description()) {
      assertThat(paragraph).as(command.getCommandName()).endsWith(".");
    }
    command.getSubcommands().values().forEach(CliTest::assertFinished);
  }

  @Test
  void aFolderWithNoDocumentOfASupportedTypeIsRefusedInOneLine() throws Exception {
    Path folder = Files.createDirectories(scratch.resolve("exports"));
    Files.writeString(folder.resolve("questions.json"), "{}");
    assertThat(run("ingest", folder.toString(), "--server", "http://127.0.0.1:9")).isEqualTo(1);
    assertThat(oneLineOfErr()).contains("no PDF, DOCX, HTML, Markdown, TXT or CSV files found under").contains("exports");
  }

  @Test
  void aServerThatIsNotThereIsNamed() throws Exception {
    Path file = Files.writeString(scratch.resolve("note.md"), "# Note\n\nHello.\n");
    String[][] commands = {
        {"replay", "--server", "http://127.0.0.1:9", "x"},
        {"ingest", "--server", "http://127.0.0.1:9", file.toString()},
        {"billing", "--server", "http://127.0.0.1:9"},
        {"tenants", "list", "--server", "http://127.0.0.1:9"}};
    System.setProperty("colloquy.admin.token", "an-admin-token");
    for (String[] command : commands) {
      err.getBuffer().setLength(0);
      assertThat(run(command)).as(command[0]).isEqualTo(1);
      assertThat(oneLineOfErr()).as(command[0]).contains("http://127.0.0.1:9");
    }
  }

  @Test
  void replaysForksAndDiffsWithMissingOrClashingArgumentsAreRefusedInOneLine() {
    String[][] commands = {
        {"replay"},
        {"replay", "--fork-at-turn", "2", "abc"},
        {"replay", "--fork-at-turn", "0", "--server", "http://127.0.0.1:9", "abc"},
        {"replay", "--model", "m", "abc"},
        {"replay", "--diff", "a", "b", "c"}};
    String[] named = {"name the session", "needs a running server", "must be 1 or more", "go with --fork-at-turn",
        "--diff takes its two sessions"};
    for (int i = 0; i < commands.length; i++) {
      err.getBuffer().setLength(0);
      assertThat(run(commands[i])).as(String.join(" ", commands[i])).isEqualTo(1);
      assertThat(oneLineOfErr()).as(String.join(" ", commands[i])).contains(named[i]);
    }
  }

  @Test
  void readingCommandsRefuseADirectoryWithoutColloquyData() {
    Path empty = scratch.resolve("not-data");
    String[][] commands = {
        {"replay", "--data-dir", empty.toString(), "abc"},
        {"projections", "rebuild", "--data-dir", empty.toString()},
        {"billing", "--data-dir", empty.toString()},
        {"tenants", "list", "--data-dir", empty.toString()}};
    for (String[] command : commands) {
      err.getBuffer().setLength(0);
      assertThat(run(command)).as(command[0]).isEqualTo(1);
      assertThat(oneLineOfErr()).as(command[0]).contains("no Colloquy data in " + empty.toAbsolutePath());
    }
    assertThat(empty).doesNotExist();
  }

  @Test
  void aPortInUseIsNamed() throws Exception {
    System.setProperty("pekko.remote.artery.canonical.port", "0");
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("0.0.0.0"))) {
      int port = taken.getLocalPort();
      assertThat(run("serve", "--port", String.valueOf(port), "--data-dir", scratch.resolve("data").toString()))
          .isEqualTo(1);
      assertThat(oneLineOfErr()).contains("HTTP port " + port).contains("already in use").contains("--port");
    }
  }

  @Test
  void serveExitsWithWhyItsActorSystemStopped() {
    // A supervisor restarts on a non-zero status: a downed node (3) must come back, an asked-for stop must not.
    assertThat(ServeCommand.exitStatus(CoordinatedShutdown.clusterDowningReason())).isEqualTo(3);
    assertThat(ServeCommand.exitStatus(CoordinatedShutdown.clusterJoinUnsuccessfulReason())).isEqualTo(1);
    assertThat(ServeCommand.exitStatus(CoordinatedShutdown.incompatibleConfigurationDetectedReason())).isEqualTo(1);
    assertThat(ServeCommand.exitStatus(CoordinatedShutdown.jvmExitReason())).isZero();
    assertThat(ServeCommand.exitStatus(CoordinatedShutdown.clusterLeavingReason())).isZero();
    assertThat(ServeCommand.exitStatus(null)).isZero();
  }
}
