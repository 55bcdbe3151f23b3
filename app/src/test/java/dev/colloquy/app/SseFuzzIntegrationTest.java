package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSE fuzz: model outputs drawn from {@link NastyTokens} (CR, LF, CRLF, NUL, lone surrogates, text
 * that would start an SSE field, 1 MB tokens, bytes that are not UTF-8) go from the mock model
 * through Colloquy's canonical stream to an SSE parser that is not Colloquy's ({@code
 * eventsource-parser} in Node, after the browser's TextDecoder), which must read exactly the tokens
 * sent, in order, in every case; the run's and the turn's text, the session's messages and the read
 * tables must hold the same text. "Exactly" is {@link NastyTokens}'s expected text: what was sent,
 * with U+FFFD where no UTF-8 text can hold it.
 *
 * <p>The suite runs a seeded subset of 200 outputs. The full run ({@code bench/RESULTS.md}):
 * {@code ./colloquy test -pl app -am -Dtest=SseFuzzIntegrationTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsse.fuzz.cases=10000}; {@code -Dsse.fuzz.seed=N} replays another draw.
 */
class SseFuzzIntegrationTest {

  private static final int CASES = Integer.getInteger("sse.fuzz.cases", 200);
  private static final long SEED = Long.getLong("sse.fuzz.seed", 20261124L);
  /** Cases run by one Node process, registered with the mock at once. */
  private static final int BATCH = 500;
  /** Every this many cases, one output carries a 1 MB token (the first at case 7). */
  private static final int LARGE_EVERY = 500;
  private static final int CONCURRENCY = 4;
  private static final Duration PROJECTION_LAG = Duration.ofSeconds(60);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.limits.max-open-sessions", 100_000));

  @Test
  void anIndependentParserReadsExactlyTheTokensSentInOrder(@TempDir Path work) throws Exception {
    NodeProject reader = NodeProject.installed("app/src/test/sse-reader");
    NastyTokens nasty = new NastyTokens(SEED);
    List<String> failures = new ArrayList<>();
    long tokens = 0;
    long largeTokens = 0;
    long started = System.nanoTime();
    for (int first = 0; first < CASES; first += BATCH) {
      Map<String, List<NastyTokens.Token>> batch = new LinkedHashMap<>();
      for (int id = first; id < Math.min(CASES, first + BATCH); id++) {
        List<NastyTokens.Token> output = nasty.output(id % LARGE_EVERY == 7);
        tokens += output.size();
        largeTokens += output.stream().filter(token -> token.expected().length() >= NastyTokens.LARGE).count();
        String cue = "sse fuzz " + SEED + " case " + id;
        batch.put(cue, output);
        app.mock().scriptRaw(cue, output.stream().map(NastyTokens.Token::wire).toList());
      }
      try {
        failures.addAll(check(batch, read(reader, batch, work), first));
      } finally {
        batch.keySet().forEach(app.mock()::forgetRaw);
      }
    }
    System.out.printf("SSE FUZZ seed %d: %d cases, %d tokens (%d of 1 MB), %d failures, %d s%n", SEED, CASES, tokens,
        largeTokens, failures.size(), (System.nanoTime() - started) / 1_000_000_000);
    assertThat(failures).as("cases the independent parser read otherwise than sent").isEmpty();
  }

  /** One Node run over the batch; its results by case id. */
  private static Map<Integer, JsonNode> read(NodeProject reader, Map<String, List<NastyTokens.Token>> batch, Path work)
      throws Exception {
    ObjectNode input = Api.JSON.createObjectNode().put("concurrency", CONCURRENCY);
    ArrayNode cases = input.putArray("cases");
    int id = 0;
    for (String cue : batch.keySet()) {
      cases.addObject().put("id", id++).put("message", cue);
    }
    Path casesFile = work.resolve("cases.json");
    Path resultsFile = work.resolve("results.jsonl");
    Api.JSON.writeValue(casesFile.toFile(), input);
    NodeProject.Run run = reader.node("read.mjs", List.of(casesFile.toString(), resultsFile.toString()),
        Map.of("COLLOQUY_BASE_URL", app.colloquy().baseUrl(), "COLLOQUY_API_KEY", app.api().apiKey()),
        Duration.ofMinutes(30));
    assertThat(run.exitCode()).as(run.output()).isZero();
    Map<Integer, JsonNode> results = new LinkedHashMap<>();
    try (BufferedReader lines = Files.newBufferedReader(resultsFile, StandardCharsets.UTF_8)) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        JsonNode result = Api.JSON.readTree(line);
        results.put(result.path("id").asInt(), result);
      }
    }
    return results;
  }

  /** What each case's stream, session and read tables hold against what was sent; a line per case that differs. */
  private static List<String> check(Map<String, List<NastyTokens.Token>> batch, Map<Integer, JsonNode> results,
      int first) throws Exception {
    List<String> failures = new ArrayList<>();
    ReadTables tables = new ReadTables(app.colloquy().database().dataSource());
    int id = 0;
    for (Map.Entry<String, List<NastyTokens.Token>> sent : batch.entrySet()) {
      String name = "case " + (first + id);
      JsonNode result = results.get(id++);
      List<String> expected = sent.getValue().stream().map(NastyTokens.Token::expected).toList();
      String text = String.join("", expected);
      if (result == null) {
        failures.add(name + ": no result");
        continue;
      }
      List<String> read = new ArrayList<>();
      result.path("tokens").forEach(token -> read.add(token.asText()));
      if (!result.path("problems").isEmpty()) {
        failures.add(name + ": " + abbreviated(result.path("problems").toString()));
      } else if (!read.equals(expected)) {
        failures.add(name + ": tokens " + firstDifference(expected, read));
      } else if (!text.equals(result.path("turnText").asText()) || result.path("runTexts").size() != 1
          || !text.equals(result.path("runTexts").get(0).asText())) {
        failures.add(name + ": the run's or the turn's text differs from its tokens");
      } else if (result.path("afterTerminal").asInt() != 0) {
        failures.add(name + ": events after the terminal one");
      } else {
        String sessionId = result.path("sessionId").asText();
        JsonNode messages = app.api().session(sessionId).path("messages");
        if (!text.equals(messages.path(1).path("content").asText())) {
          failures.add(name + ": the session's message differs from the stream");
        } else if (!readSideHolds(tables, sessionId, text)) {
          failures.add(name + ": the read tables do not hold the answer");
        }
      }
    }
    return failures;
  }

  /** The answer in the messages table once the projection has it, as PostgreSQL can store it. */
  private static boolean readSideHolds(ReadTables tables, String sessionId, String text) throws Exception {
    String stored = text.replace('\u0000', '\ufffd');
    long deadline = System.nanoTime() + PROJECTION_LAG.toNanos();
    while (System.nanoTime() < deadline) {
      List<Map<String, Object>> rows = tables.rows(
          "SELECT content FROM messages WHERE session_id = ? AND role = 'assistant'", sessionId);
      if (!rows.isEmpty()) {
        return Objects.equals(stored, rows.getFirst().get("content"));
      }
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    return false;
  }

  private static String firstDifference(List<String> expected, List<String> read) {
    for (int i = 0; i < Math.max(expected.size(), read.size()); i++) {
      String want = i < expected.size() ? expected.get(i) : null;
      String got = i < read.size() ? read.get(i) : null;
      if (!Objects.equals(want, got)) {
        return "#" + i + " expected " + visible(want) + " read " + visible(got) + " (" + expected.size() + " sent, "
            + read.size() + " read)";
      }
    }
    return "equal";
  }

  private static String visible(String text) {
    if (text == null) {
      return "nothing";
    }
    StringBuilder shown = new StringBuilder("\"");
    text.codePoints().limit(80).forEach(c -> shown.append(c < 0x20 || c == 0x7f || (c >= 0xd800 && c <= 0xdfff)
        ? String.format("\\u%04x", c) : new String(Character.toChars(c))));
    return shown.append(text.length() > 80 ? "…\" (" + text.length() + " chars)" : "\"").toString();
  }

  private static String abbreviated(String text) {
    return text.length() > 400 ? text.substring(0, 400) + "…" : text;
  }
}
