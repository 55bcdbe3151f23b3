package dev.colloquy.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap and resident memory of another JVM at one moment: after {@code delay} it asks the
 * JVM for a full collection with jcmd, then reads the heap it still uses and its RSS.
 */
final class HeapProbe {

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  private final CompletableFuture<String> liveHeap = new CompletableFuture<>();
  private final CompletableFuture<String> rss = new CompletableFuture<>();

  private HeapProbe() {}

  static HeapProbe after(long pid, Duration delay) {
    HeapProbe probe = new HeapProbe();
    Thread.ofVirtual().start(() -> {
      try {
        Thread.sleep(delay); // the moment to look at comes a known time into the run
        Jcmd.run(pid, "GC.run");
        Matcher used = USED.matcher(Jcmd.run(pid, "GC.heap_info"));
        probe.liveHeap.complete(used.find() ? mib(Long.parseLong(used.group(1)) * 1024) : "?");
        probe.rss.complete(mib(ProcStat.rssBytes(pid)));
      } catch (IOException | InterruptedException | RuntimeException e) {
        probe.liveHeap.complete("? (" + e.getMessage() + ")");
        probe.rss.complete(mib(ProcStat.rssBytes(pid)));
      }
    });
    return probe;
  }

  String liveHeap() {
    return liveHeap.getNow("not reached");
  }

  String rss() {
    return rss.getNow("not reached");
  }

  private static String mib(long bytes) {
    return String.format("%.0f MiB", bytes / (double) (1 << 20));
  }
}
