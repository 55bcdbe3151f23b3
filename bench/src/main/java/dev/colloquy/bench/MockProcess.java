package dev.colloquy.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** The mock model in a JVM of its own, with a fixed script: tokens per answer, time to first token, delay between tokens. */
final class MockProcess implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("mock-llm listening on (\\S+)");

  private final ChildJvm jvm;
  private final String baseUrl;

  private MockProcess(ChildJvm jvm, String baseUrl) {
    this.jvm = jvm;
    this.baseUrl = baseUrl;
  }

  /** {@code http2}: the mock also speaks HTTP/2 over plain TCP, so a node can share a few connections. */
  static MockProcess start(int tokens, long ttftMs, long delayMs, boolean http2, List<String> jvmOptions)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("mock-llm", "--port", "0", "--tokens", Integer.toString(tokens),
        "--ttft-ms", Long.toString(ttftMs), "--delay-ms", Long.toString(delayMs)));
    if (http2) {
      args.add("--http2");
    }
    ChildJvm jvm = ChildJvm.start("mock", jvmOptions, Map.of(), args);
    try {
      // At load 40 on two cores the mock has taken over a minute to start.
      return new MockProcess(jvm, jvm.awaitOutput(LISTENING, Duration.ofSeconds(180)));
    } catch (IOException | RuntimeException | InterruptedException e) {
      jvm.close();
      throw e;
    }
  }

  /** The OpenAI base URL, ending in /v1. */
  String baseUrl() {
    return baseUrl;
  }

  long pid() {
    return jvm.pid();
  }

  @Override
  public void close() throws InterruptedException {
    jvm.close();
  }
}
