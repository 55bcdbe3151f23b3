package dev.colloquy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code colloquy bench auth} at tiny sizes on the real application, so that its code keeps working. */
class AuthBenchTest {

  @Test
  void authMeasuresEveryCredentialAndStreamsWithAKeyAndAJwt() throws Exception {
    PrintStream stdout = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int exitCode;
    try {
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      exitCode = Cli.commandLine().execute("bench", "auth", "--calls", "200", "--warm-up-calls", "100",
          "--pairs", "1", "--sessions", "2", "--turns", "1", "--tokens", "4", "--ttft-ms", "10", "--delay-ms", "1",
          "--ramp-up-ms", "0");
    } finally {
      System.setOut(stdout);
    }

    String report = printed.toString(StandardCharsets.UTF_8);
    assertThat(exitCode).as(report).isZero();
    assertThat(report).contains("Machine: ", "| authentication | p50 | p99 | added p50 | added p99 |",
        "| none (baseline) |", "| API key (cache hit) |", "| HS256 JWT |", "| RS256 JWT (JWKS) |",
        "| 1 | API key |", "| 1 | HS256 JWT |", "| JWT / key |");
  }
}
