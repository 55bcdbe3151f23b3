package dev.colloquy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code colloquy bench streaming --dialect} at tiny sizes on the real application: every dialect the
 * benchmark knows runs its client's turns to their end (a dialect whose stream did not end as its
 * contract says fails the run), so that each keeps working.
 */
class StreamingDialectsBenchTest {

  @Test
  void everyDialectStreamsItsTurnsBesideTheCanonicalRoute() throws Exception {
    PrintStream stdout = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int exitCode;
    try {
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      exitCode = Cli.commandLine().execute("bench", "streaming", "--dialect", String.join(",", BenchDialect.ALL.keySet()),
          "--pairs", "1", "--sessions", "2", "--turns", "2", "--tokens", "4", "--ttft-ms", "10", "--delay-ms", "1",
          "--ramp-up-ms", "0");
    } finally {
      System.setOut(stdout);
    }

    String report = printed.toString(StandardCharsets.UTF_8);
    assertThat(exitCode).as(report).isZero();
    assertThat(BenchDialect.ALL.keySet()).containsExactlyInAnyOrder("canonical", "openai", "fanout", "writing-room",
        "edge", "support");
    for (String dialect : BenchDialect.ALL.keySet()) {
      assertThat(report).as(report).contains("| " + dialect + " | 4 | ");
    }
  }

  @Test
  void anUnknownDialectIsRefusedNamingTheKnownOnes() {
    PrintStream stderr = System.err;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int exitCode;
    try {
      System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
      exitCode = Cli.commandLine().execute("bench", "streaming", "--dialect", "smoke-signals");
    } finally {
      System.setErr(stderr);
    }

    assertThat(exitCode).isNotZero();
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Unknown dialect 'smoke-signals'", "writing-room",
        "support");
  }
}
