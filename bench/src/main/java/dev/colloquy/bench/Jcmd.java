package dev.colloquy.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The JDK's jcmd, beside the java this benchmark runs on, sent to another JVM. */
final class Jcmd {

  private Jcmd() {}

  /** Runs {@code jcmd PID command…} and returns what it printed. */
  static String run(long pid, String... command) throws IOException, InterruptedException {
    Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
    List<String> line = new ArrayList<>(List.of(java.resolveSibling("jcmd").toString(), Long.toString(pid)));
    line.addAll(List.of(command));
    Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(60, TimeUnit.SECONDS);
    return output;
  }
}
