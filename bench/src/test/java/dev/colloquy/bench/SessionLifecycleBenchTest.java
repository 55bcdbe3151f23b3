package dev.colloquy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.app.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The issue-3 benchmarks at tiny sizes on the real application, so that their code keeps working. */
class SessionLifecycleBenchTest {

  /**
   * Only what sharding reports is asserted: the heap of this JVM, shared with the test classes before
   * it, still shrinks as their leftovers go, so a few dozen sessions' heap is no signal here. The
   * passivation timeout leaves room for opening them on a loaded machine (200 sessions once took more
   * than 10 s under a load of 30), since a session passivated before the count fails the phase.
   */
  @Test
  void sessionHeapMeasuresWithEverySessionInMemoryThenWithNone() throws Exception {
    try (BenchNode node = BenchNode.start(Map.of("colloquy.session.passivation-timeout", "20s"))) {
      long before = UsedHeap.afterFullGc();

      SessionHeapBench.Row row = SessionHeapBench.measure(node.colloquy(), "measured", 50, 1, 8, before);

      assertThat(row.liveWhenActive()).as(row.markdown()).isEqualTo(50);
      assertThat(row.liveWhenPassivated()).as(row.markdown()).isZero();
      assertThat(row.markdown()).startsWith("| measured | 50 | 1 |");
    }
  }

  @Test
  void recoveryTimesEverySessionWithItsSnapshotAndWithoutAny() throws Exception {
    try (BenchNode node = BenchNode.start(Map.of(
        "colloquy.session.passivation-timeout", "1s",
        "colloquy.session.snapshot-every", 10))) {
      Map<String, Long> sessions = RecoveryBench.writeSessions(node.colloquy(), List.of(20, 50));

      List<RecoveryBench.Row> rows = RecoveryBench.measure(node.colloquy(), sessions, 2);

      List<Long> sizes = List.copyOf(sessions.values());
      assertThat(sizes.get(0)).as("events of the first session").isBetween(20L, 29L);
      assertThat(sizes.get(1)).as("events of the second session").isBetween(50L, 59L);
      assertThat(rows).extracting(RecoveryBench.Row::mode).containsExactly("yes", "none", "yes", "none");
      assertThat(rows).allSatisfy(row -> assertThat(row.micros()).hasSize(2).allSatisfy(took -> assertThat(took).isPositive()));
      assertThat(rows.get(2).snapshotAt()).as("latest snapshot of the second session, one every 10 events")
          .isBetween(sizes.get(1) - 12, sizes.get(1));
      assertThat(rows.get(3).snapshotAt()).isZero();
    }
  }

  @Test
  void journalRunsItsWritersFromTheCommandLineAndReportsThroughputAndLatency() throws Exception {
    PrintStream stdout = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int exitCode;
    try {
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      exitCode = Cli.commandLine()
          .execute("bench", "journal", "--writers", "4", "--seconds", "2", "--warm-up-seconds", "1");
    } finally {
      System.setOut(stdout);
    }

    String report = printed.toString(StandardCharsets.UTF_8);
    assertThat(exitCode).as(report).isZero();
    assertThat(report).contains("Machine: ", "embedded PostgreSQL", "| writers | measured | events | events/s |");
    String row = report.lines().filter(line -> line.startsWith("| 4 |")).findFirst().orElseThrow(() -> new AssertionError(report));
    long events = Long.parseLong(row.split("\\|")[3].trim().replace(",", ""));
    assertThat(events).as(row).isPositive();
  }
}
