package dev.colloquy.engine.model.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.colloquy.engine.model.TokenUsage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A streamed chat completion read straight off the response body: server-sent events whose data is
 * one chunk of JSON each, until {@code [DONE]}. Only what a run needs is read from a chunk (each
 * choice's {@code delta.content}, the {@code usage}, an {@code error}), with Jackson's streaming
 * parser and one shared factory: openai-java would build its whole model of every chunk through
 * Kotlin reflection, which cost more CPU per token than the rest of the engine.
 */
final class CompletionChunks {

  /** What one chunk carried. */
  interface Handler {
    void content(String text);

    void usage(TokenUsage usage);
  }

  /** The stream carried an error event (OpenAI sends one instead of a chunk when it fails mid-stream). */
  static final class ErrorEvent extends IOException {
    ErrorEvent(String message) {
      super(message);
    }
  }

  private static final JsonFactory JSON = new JsonFactory();
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
    try (JsonParser parser = JSON.createParser(data, 0, dataLength)) {
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
          handler.content(text);
        }
      } else {
        parser.skipChildren();
      }
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
