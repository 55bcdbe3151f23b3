package dev.colloquy.engine.model.openai;

import com.openai.core.http.HttpRequestBody;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * A JSON request body already written to bytes. Repeatable, so that openai-java's retrying client
 * may send it again after a 429 or a 5xx.
 */
final class JsonBody implements HttpRequestBody {

  private final byte[] bytes;

  JsonBody(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The body itself, for a transport that takes bytes; not to be changed. */
  byte[] bytes() {
    return bytes;
  }

  @Override
  public void writeTo(OutputStream out) {
    try {
      out.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String contentType() {
    return "application/json";
  }

  @Override
  public long contentLength() {
    return bytes.length;
  }

  @Override
  public boolean repeatable() {
    return true;
  }

  @Override
  public void close() {
    // Nothing held: the bytes are the caller's.
  }
}
