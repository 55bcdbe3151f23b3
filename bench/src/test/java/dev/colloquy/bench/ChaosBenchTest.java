package dev.colloquy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code colloquy bench chaos} at a small size, in the suite: a loaded node killed with SIGKILL,
 * and not one acknowledged turn lost or doubled, every turn ended once, the read side equal to its
 * rebuild. The full run (100 cycles) is in bench/RESULTS.md.
 */
class ChaosBenchTest {

  @Test
  void aKillMidLoadLosesNothingTheServerAcknowledged() {
    PrintStream stdout = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int exitCode;
    try {
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      exitCode = Cli.commandLine().execute("bench", "chaos", "--cycles", "1", "--clients", "3",
          "--kill-after-ms", "2500", "--tokens", "20", "--delay-ms", "40");
    } finally {
      System.setOut(stdout);
    }

    String report = printed.toString(StandardCharsets.UTF_8);
    assertThat(exitCode).as(report).isZero();
    String row = report.lines().filter(line -> line.startsWith("| 1 | 3 |")).findFirst()
        .orElseThrow(() -> new AssertionError(report));
    String[] cells = row.split("\\|");
    assertThat(Long.parseLong(cells[5].trim().replace(",", ""))).as("acknowledged turns: " + row).isPositive();
    assertThat(cells[8].trim()).as("lost").isEqualTo("0");
    assertThat(cells[9].trim()).as("duplicated").isEqualTo("0");
    assertThat(cells[10].trim()).as("not ended exactly once").isEqualTo("0");
    assertThat(cells[11].trim()).as("sequence gaps").isEqualTo("0");
    assertThat(cells[12].trim()).as("told otherwise").isEqualTo("0");
    assertThat(cells[13].trim()).as("read side equal to its rebuild").isEqualTo("yes");
    assertThat(report).doesNotContain("PROBLEM");
  }
}
