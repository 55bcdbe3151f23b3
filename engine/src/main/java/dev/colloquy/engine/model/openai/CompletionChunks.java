package dev.colloquy.engine.model.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import dev.colloquy.engine.model.TokenUsage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A streamed chat completion read straight off the response body: server-sent events whose data is
 * one chunk of JSON each, until {@code [DONE]}. Only what a run needs is read from a chunk (each
 * choice's {@code delta.content} and {@code delta.tool_calls}, the {@code usage}, an {@code error}), with Jackson's streaming
 * parser and one shared factory: openai-java would build its whole model of every chunk through
 * Kotlin reflection, which cost more CPU per token than the rest of the engine.
 *
 * <p>What a faulty upstream sends that no UTF-8 text can hold becomes U+FFFD, so everything after
 * the model (frames, journal, read tables) holds well-formed text: bytes that are not UTF-8 are
 * decoded as the Unicode Standard recommends (one U+FFFD per maximal ill-formed subsequence, as Java's
 * decoder and the WHATWG one do), and a surrogate escaped in the JSON without its other half becomes
 * one U+FFFD.
 */
final class CompletionChunks {

  /** What one chunk carried. */
  interface Handler {
    void content(String text);

    /**
     * A piece of tool call {@code index}: its first piece names the call's id and tool, later ones
     * carry more of its arguments (null where a piece does not say).
     */
    void toolCall(int index, String id, String name, String arguments);

    void usage(TokenUsage usage);
  }

  /** The stream carried an error event (OpenAI sends one instead of a chunk when it fails mid-stream). */
  static final class ErrorEvent extends IOException {
    ErrorEvent(String message) {
      super(message);
    }
  }

  /**
   * Jackson keeps a parser's buffers per thread by default, and every call reads its stream on a
   * virtual thread of its own, which would make each call allocate them afresh: a pool shared by the
   * calls' threads hands the same buffers from one call to the next.
   */
  private static final JsonFactory JSON = JsonFactory.builder()
      .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
      .build();
  private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT = "event:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

  private final InputStream body;
  private final byte[] input = new byte[8192];
  private int position;
  private int limit;
  private byte[] line = new byte[1024];
  private int lineLength;
  private byte[] data = new byte[1024];
  private int dataLength;
  private boolean hasData;
  private boolean errorEvent;

  CompletionChunks(InputStream body) {
    this.body = body;
  }

  /**
   * Reads the next event and hands what its chunk carried to {@code handler}; returns false at
   * {@code [DONE]} or at the end of the body.
   */
  boolean next(Handler handler) throws IOException {
    while (readLine()) {
      if (lineLength == 0) {
        if (hasData && dispatch(handler)) {
          return !done();
        }
        continue;
      }
      if (startsWith(line, lineLength, DATA)) {
        appendData(line, DATA.length, lineLength);
      } else if (startsWith(line, lineLength, EVENT)) {
        errorEvent = new String(line, EVENT.length, lineLength - EVENT.length, StandardCharsets.UTF_8).strip()
            .equals("error");
      }
    }
    // A body that ends without the blank line after its last event still delivers that event.
    return hasData && dispatch(handler) && !done();
  }

  /** Reads whatever follows [DONE], so that the connection can be reused. */
  void drain() throws IOException {
    while (body.read(input) >= 0) {
      // nothing follows [DONE] but the end of the response
    }
  }

  /** Handles the event's data; returns true when there was an event to handle. */
  private boolean dispatch(Handler handler) throws IOException {
    hasData = false;
    boolean error = errorEvent;
    errorEvent = false;
    if (done()) {
      return true;
    }
    parse(handler, error);
    dataLength = 0;
    return true;
  }

  private boolean done() {
    return dataLength == DONE.length && Arrays.equals(data, 0, dataLength, DONE, 0, DONE.length);
  }

  private void parse(Handler handler, boolean errorEvent) throws IOException {
    // Jackson refuses bytes that are not UTF-8 (the whole chunk would be lost); Java's decoder replaces them.
    try (JsonParser parser = JSON.createParser(new String(data, 0, dataLength, StandardCharsets.UTF_8))) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new ErrorEvent("The model stream sent an event that is not a JSON object");
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "choices" -> choices(parser, value, handler);
          case "usage" -> usage(parser, value, handler);
          case "error" -> {
            if (value != JsonToken.VALUE_NULL) {
              throw new ErrorEvent("The model stream sent an error event");
            }
          }
          default -> parser.skipChildren();
        }
      }
    }
    if (errorEvent) {
      throw new ErrorEvent("The model stream sent an error event");
    }
  }

  private static void choices(JsonParser parser, JsonToken value, Handler handler) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      parser.skipChildren();
      return;
    }
    while (parser.nextToken() == JsonToken.START_OBJECT) {
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken choiceValue = parser.nextToken();
        if (field.equals("delta") && choiceValue == JsonToken.START_OBJECT) {
          delta(parser, handler);
        } else {
          parser.skipChildren();
        }
      }
    }
  }

  private static void delta(JsonParser parser, Handler handler) throws IOException {
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      if (field.equals("content") && value == JsonToken.VALUE_STRING) {
        String text = parser.getText();
        if (!text.isEmpty()) {
          handler.content(wellFormed(text));
        }
      } else if (field.equals("tool_calls") && value == JsonToken.START_ARRAY) {
        toolCalls(parser, handler);
      } else {
        parser.skipChildren();
      }
    }
  }

  /** {@code text} with each surrogate that is not half of a pair replaced by U+FFFD. */
  static String wellFormed(String text) {
    StringBuilder fixed = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
        continue;
      }
      if (fixed == null) {
        fixed = new StringBuilder(text);
      }
      fixed.setCharAt(i, '\uFFFD');
    }
    return fixed == null ? text : fixed.toString();
  }

  /** {@code [{"index", "id", "type", "function": {"name", "arguments"}}]}, each field optional but the index. */
  private static void toolCalls(JsonParser parser, Handler handler) throws IOException {
    JsonToken element;
    while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
      if (element != JsonToken.START_OBJECT) {
        parser.skipChildren();
        continue;
      }
      int index = 0;
      String id = null;
      String name = null;
      String arguments = null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if (field.equals("index") && value == JsonToken.VALUE_NUMBER_INT) {
          index = parser.getIntValue();
        } else if (field.equals("id") && value == JsonToken.VALUE_STRING) {
          id = parser.getText();
        } else if (field.equals("function") && value == JsonToken.START_OBJECT) {
          while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String part = parser.currentName();
            JsonToken text = parser.nextToken();
            if (part.equals("name") && text == JsonToken.VALUE_STRING) {
              name = parser.getText();
            } else if (part.equals("arguments") && text == JsonToken.VALUE_STRING) {
              arguments = parser.getText();
            } else {
              parser.skipChildren();
            }
          }
        } else {
          parser.skipChildren();
        }
      }
      handler.toolCall(index, id, name, arguments);
    }
  }

  private static void usage(JsonParser parser, JsonToken value, Handler handler) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      parser.skipChildren();
      return;
    }
    long prompt = -1;
    long completion = -1;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken number = parser.nextToken();
      if (field.equals("prompt_tokens") && number == JsonToken.VALUE_NUMBER_INT) {
        prompt = parser.getLongValue();
      } else if (field.equals("completion_tokens") && number == JsonToken.VALUE_NUMBER_INT) {
        completion = parser.getLongValue();
      } else {
        parser.skipChildren();
      }
    }
    if (prompt >= 0 && completion >= 0) {
      handler.usage(new TokenUsage(prompt, completion));
    }
  }

  /** Reads one line without its terminator (LF, CRLF or CR) into {@code line}; false at the end of the body. */
  private boolean readLine() throws IOException {
    lineLength = 0;
    while (true) {
      if (position == limit) {
        limit = body.read(input);
        position = 0;
        if (limit <= 0) {
          limit = 0;
          return lineLength > 0;
        }
      }
      byte b = input[position++];
      if (b == '\n') {
        return true;
      }
      if (b == '\r') {
        if (position == limit) {
          limit = body.read(input);
          position = 0;
          if (limit <= 0) {
            limit = 0;
            return true;
          }
        }
        if (input[position] == '\n') {
          position++;
        }
        return true;
      }
      if (lineLength == line.length) {
        line = Arrays.copyOf(line, line.length * 2);
      }
      line[lineLength++] = b;
    }
  }

  /** SSE: the value after the field's colon loses one leading space; several data lines join with LF. */
  private void appendData(byte[] from, int start, int end) {
    if (start < end && from[start] == ' ') {
      start++;
    }
    int needed = dataLength + (hasData ? 1 : 0) + end - start;
    if (needed > data.length) {
      data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
    }
    if (hasData) {
      data[dataLength++] = '\n';
    }
    System.arraycopy(from, start, data, dataLength, end - start);
    dataLength += end - start;
    hasData = true;
  }

  private static boolean startsWith(byte[] bytes, int length, byte[] prefix) {
    return length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
