package dev.colloquy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code colloquy bench} is on the command line when this module is on the class path, as with the launcher. */
class BenchCommandTest {

  @Test
  void benchAndEachBenchmarkHaveHelp() {
    for (String benchmark : new String[] {"", "streaming", "retrieval", "session-heap", "recovery", "journal", "auth", "startup",
        "failover"}) {
      StringWriter out = new StringWriter();
      String[] args = benchmark.isEmpty() ? new String[] {"bench", "--help"} : new String[] {"bench", benchmark, "--help"};
      assertThat(Cli.commandLine().setOut(new PrintWriter(out)).execute(args)).as(benchmark).isZero();
      assertThat(out.toString()).as(benchmark).contains(("Usage: colloquy bench " + benchmark).strip());
    }
  }
}
