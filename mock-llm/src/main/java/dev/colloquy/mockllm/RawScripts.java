package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Answers given byte for byte, to test how a client copes with whatever an upstream may send. A
 * streamed request whose last user message is a registered cue is answered with the cue's tokens,
 * one chunk each, each token's bytes placed as they are between the quotes of the chunk's {@code
 * content}: JSON escapes (of CR, NUL, a lone surrogate), plain UTF-8, or bytes
 * that are not UTF-8 at all. What they mean once decoded is the client's business; the mock only
 * sends them. Nothing else about the request changes: the gate, failures and stats apply as usual.
 */
final class RawScripts {

  private static final String EMPTY_CONTENT = "\"content\":\"\"";

  private final Map<String, List<ByteString>> byCue = new ConcurrentHashMap<>();

  void put(String cue, List<byte[]> tokens) {
    byCue.put(cue, tokens.stream().map(ByteString::fromArray).toList());
  }

  void remove(String cue) {
    byCue.remove(cue);
  }

  /** The tokens scripted for the request's last user message, if any. */
  Optional<List<ByteString>> find(JsonNode request) {
    JsonNode messages = request.path("messages");
    for (int i = messages.size() - 1; i >= 0; i--) {
      JsonNode message = messages.get(i);
      if (message.path("role").asText().equals("user")) {
        return Optional.ofNullable(byCue.get(message.path("content").asText()));
      }
    }
    return Optional.empty();
  }

  /** The answer as server-sent events: a chunk per token, the finish chunk, usage when asked for, [DONE]. */
  static Source<ByteString, NotUsed> stream(ChatScript script, List<ByteString> tokens, MockLlmStats stats) {
    ByteString[] around = splitAtContent(script);
    List<ByteString> events = new ArrayList<>();
    for (ByteString token : tokens) {
      events.add(event(around[0].concat(token).concat(around[1])));
    }
    events.add(event(ByteString.fromString(ChatCompletionWire.finishChunk(script), StandardCharsets.UTF_8)));
    if (script.request().includeUsage()) {
      events.add(event(ByteString.fromString(ChatCompletionWire.usageChunk(script), StandardCharsets.UTF_8)));
    }
    events.add(event(ByteString.fromString(ChatCompletionWire.DONE, StandardCharsets.US_ASCII)));
    stats.streamOpened();
    stats.tokensSent(tokens.size());
    return Source.from(events).watchTermination((notUsed, done) -> {
      done.whenComplete((ok, failure) -> {
        if (failure == null) {
          stats.streamCompleted();
        } else {
          stats.streamCancelled();
        }
      });
      return notUsed;
    });
  }

  /** A token chunk's JSON before and after its content's quotes. */
  private static ByteString[] splitAtContent(ChatScript script) {
    String empty = Json.write(new ChatCompletionWire.Chunk(script.id(), "chat.completion.chunk", script.created(),
        script.model(), List.of(new ChatCompletionWire.ChunkChoice(0, new ChatCompletionWire.Delta(null, ""), null)),
        null));
    int quote = empty.indexOf(EMPTY_CONTENT) + EMPTY_CONTENT.length() - 1;
    return new ByteString[] {
        ByteString.fromString(empty.substring(0, quote), StandardCharsets.UTF_8),
        ByteString.fromString(empty.substring(quote), StandardCharsets.UTF_8)};
  }

  private static ByteString event(ByteString data) {
    return ByteString.fromString("data: ", StandardCharsets.US_ASCII).concat(data)
        .concat(ByteString.fromString("\n\n", StandardCharsets.US_ASCII));
  }
}
