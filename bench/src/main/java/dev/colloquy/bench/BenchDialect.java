package dev.colloquy.bench;

import java.net.http.HttpClient;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;

/**
 * How the streaming benchmark talks to one wire dialect: it opens a session as that dialect's client
 * would, and runs one streamed turn, reporting each token's arrival. A dialect is added by adding an
 * implementation to {@link #ALL}; {@code colloquy bench streaming --dialect NAME} then measures it
 * against the canonical route.
 */
interface BenchDialect {

  /** Where the node is, and the whole {@code Authorization} header value its requests carry. */
  record Target(HttpClient client, String base, String authorization) {}

  String name();

  /** Opens a session (a conversation, …); returns its id. */
  String open(Target target) throws Exception;

  /**
   * Runs one turn of {@code sessionId} to its end, calling {@code tokens} with {@link System#nanoTime()}
   * as each token arrives; fails unless the turn completed.
   */
  void turn(Target target, String sessionId, String message, LongConsumer tokens) throws Exception;

  /** Every dialect the benchmark knows, by name. */
  Map<String, BenchDialect> ALL = new TreeMap<>(Map.of(
      CanonicalBenchDialect.NAME, new CanonicalBenchDialect(),
      OpenAiBenchDialect.NAME, new OpenAiBenchDialect(),
      FanOutBenchDialect.NAME, new FanOutBenchDialect(),
      WritingRoomBenchDialect.NAME, new WritingRoomBenchDialect(),
      EdgeBenchDialect.NAME, new EdgeBenchDialect(),
      SupportBenchDialect.NAME, new SupportBenchDialect()));
}
