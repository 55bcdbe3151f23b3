package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.http.Json;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Drives N concurrent sessions through the HTTP API against the mock model with a fixed time to
 * first token and inter-token delay, and reports what the engine adds to both, throughput and heap
 * per session. Engine, mock and clients share this JVM and its cores: the figures are an upper
 * bound of the engine's own overhead on this machine.
 */
@Command(name = "streaming", mixinStandardHelpOptions = true,
    description = "N concurrent sessions streaming turns over SSE against mock-llm; prints a Markdown report.")
final class StreamingBench implements Callable<Integer> {

  @Option(names = "--sessions", defaultValue = "100", description = "Concurrent sessions (default ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--turns", defaultValue = "3", description = "Turns per session (default ${DEFAULT-VALUE})")
  int turns;

  @Option(names = "--tokens", defaultValue = "32", description = "Tokens per answer (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--ttft-ms", defaultValue = "200", description = "Mock time to first token (default ${DEFAULT-VALUE})")
  long ttftMs;

  @Option(names = "--delay-ms", defaultValue = "20", description = "Mock inter-token delay (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--ramp-up-ms", defaultValue = "0",
      description = "Spread the sessions' first turns over this long instead of starting all at once (default ${DEFAULT-VALUE})")
  long rampUpMs;

  private final Histogram addedTtftMicros = new Histogram(3);
  private final Histogram interTokenMicros = new Histogram(3);

  @Override
  public Integer call() throws Exception {
    Path dataDir = Files.createTempDirectory("colloquy-bench");
    MockLlmSettings mockSettings = MockLlmSettings.defaults().withTokens(tokens)
        .withDelays(Duration.ofMillis(ttftMs), Duration.ofMillis(delayMs));
    try (MockLlmServer mock = MockLlmServer.start(mockSettings, "127.0.0.1", 0);
        Colloquy colloquy = Colloquy.start(ConfigFactory.parseMap(Map.of(
            "colloquy.http.port", 0,
            "colloquy.storage.data-dir", dataDir.toString(),
            "colloquy.llm.base-url", mock.baseUrl(),
            "colloquy.llm.model", "mock",
            "colloquy.session.passivation-timeout", "1h",
            "pekko.remote.artery.canonical.port", 0)));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      String base = colloquy.baseUrl();
      warmUp(client, base);
      long heapBefore = usedHeapAfterGc();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        ids.add(openSession(client, base));
      }
      long started = System.nanoTime();
      List<Future<Long>> results = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        long delayMs = rampUpMs * i / ids.size();
        results.add(clients.submit(() -> {
          Thread.sleep(delayMs); // a benchmark's ramp-up: sessions arrive over time, as users do
          return runTurns(client, base, id);
        }));
      }
      long tokensDelivered = 0;
      for (Future<Long> result : results) {
        tokensDelivered += result.get();
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      long heapPerSession = (usedHeapAfterGc() - heapBefore) / sessions;
      report(seconds, tokensDelivered, heapPerSession);
    }
    return 0;
  }

  private void warmUp(HttpClient client, String base) throws Exception {
    String id = openSession(client, base);
    runTurns(client, base, id);
    addedTtftMicros.reset();
    interTokenMicros.reset();
  }

  private static String openSession(HttpClient client, String base) throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/sessions"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201) {
      throw new IllegalStateException("open session: " + response.statusCode() + " " + response.body());
    }
    return Json.MAPPER.readTree(response.body()).path("session_id").asText();
  }

  /** Runs the session's turns one after another; returns the tokens received. */
  private long runTurns(HttpClient client, String base, String sessionId) throws Exception {
    long received = 0;
    for (int turn = 0; turn < turns; turn++) {
      HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/sessions/" + sessionId + "/turns"))
          .header("Accept", "text/event-stream").header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"message\":\"benchmark question " + turn + "\"}"))
          .build();
      long sent = System.nanoTime();
      HttpResponse<java.util.stream.Stream<String>> response = client.send(request, HttpResponse.BodyHandlers.ofLines());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("turn: HTTP " + response.statusCode());
      }
      long previous = -1;
      String event = null;
      Iterator<String> lines = response.body().iterator();
      while (lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ") && "token".equals(event)) {
          long now = System.nanoTime();
          synchronized (this) {
            if (previous < 0) {
              addedTtftMicros.recordValue(Math.max(0, (now - sent) / 1000 - ttftMs * 1000));
            } else {
              interTokenMicros.recordValue(Math.max(0, (now - previous) / 1000));
            }
          }
          previous = now;
          received++;
        } else if (line.startsWith("data: ") && event != null && event.startsWith("turn.")
            && !event.equals("turn.started")) {
          JsonNode data = Json.MAPPER.readTree(line.substring(6));
          if (!event.equals("turn.completed")) {
            throw new IllegalStateException("turn ended with " + event + ": " + data);
          }
        }
      }
    }
    return received;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200); // lets the collector finish before the heap is read; this is a benchmark, not a test
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private void report(double seconds, long tokensDelivered, long heapPerSession) {
    int totalTurns = sessions * turns;
    System.out.printf("| sessions | ramp-up | turns | tokens/turn | mock TTFT / delay | added TTFT p50 | added TTFT p99 | inter-token p99 (mock %d ms) | tokens/s | turns/s | heap/session |%n", delayMs);
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
    System.out.printf("| %d | %d ms | %d | %d | %d ms / %d ms | %.1f ms | %.1f ms | %.1f ms (added %.1f ms) | %.0f | %.1f | %.1f KiB |%n",
        sessions, rampUpMs, totalTurns, tokens, ttftMs, delayMs,
        addedTtftMicros.getValueAtPercentile(50) / 1000.0, addedTtftMicros.getValueAtPercentile(99) / 1000.0,
        interTokenMicros.getValueAtPercentile(99) / 1000.0,
        Math.max(0, interTokenMicros.getValueAtPercentile(99) / 1000.0 - delayMs),
        tokensDelivered / seconds, totalTurns / seconds, heapPerSession / 1024.0);
  }
}
