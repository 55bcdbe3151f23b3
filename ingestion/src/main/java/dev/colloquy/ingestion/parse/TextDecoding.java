package dev.colloquy.ingestion.parse;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.tika.parser.txt.CharsetDetector;
import org.apache.tika.parser.txt.CharsetMatch;

/** Decodes a text file: a BOM or valid UTF-8 wins; otherwise Tika's charset detector guesses. */
final class TextDecoding {

  private TextDecoding() {}

  static String decode(byte[] bytes) {
    if (startsWith(bytes, 0xEF, 0xBB, 0xBF)) {
      return new String(bytes, 3, bytes.length - 3, StandardCharsets.UTF_8);
    }
    if (startsWith(bytes, 0xFE, 0xFF) || startsWith(bytes, 0xFF, 0xFE)) {
      return new String(bytes, StandardCharsets.UTF_16);
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException notUtf8) {
      CharsetMatch match = new CharsetDetector().setText(bytes).detect();
      Charset charset = match == null ? StandardCharsets.ISO_8859_1 : Charset.forName(match.getName());
      return new String(bytes, charset);
    }
  }

  /**
   * How many characters {@link #decode} would make of a file, counted as it streams: a large text
   * file is measured without being held in memory. The charset is chosen as {@code decode} chooses
   * it, from the file's head for the guess.
   */
  static long countChars(Path file) {
    try {
      byte[] head;
      try (InputStream in = Files.newInputStream(file)) {
        head = in.readNBytes(64 * 1024);
      }
      if (startsWith(head, 0xEF, 0xBB, 0xBF)) {
        return count(file, StandardCharsets.UTF_8, CodingErrorAction.REPLACE) - 1;
      }
      if (startsWith(head, 0xFE, 0xFF) || startsWith(head, 0xFF, 0xFE)) {
        return count(file, StandardCharsets.UTF_16, CodingErrorAction.REPLACE);
      }
      try {
        return count(file, StandardCharsets.UTF_8, CodingErrorAction.REPORT);
      } catch (CharacterCodingException notUtf8) {
        CharsetMatch match = new CharsetDetector().setText(head).detect();
        return count(file, match == null ? StandardCharsets.ISO_8859_1 : Charset.forName(match.getName()),
            CodingErrorAction.REPLACE);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long count(Path file, Charset charset, CodingErrorAction onError) throws IOException {
    CharsetDecoder decoder = charset.newDecoder().onMalformedInput(onError).onUnmappableCharacter(onError);
    long chars = 0;
    char[] buffer = new char[64 * 1024];
    try (Reader reader = new InputStreamReader(Files.newInputStream(file), decoder)) {
      for (int read = reader.read(buffer); read >= 0; read = reader.read(buffer)) {
        chars += read;
      }
    }
    return chars;
  }

  private static boolean startsWith(byte[] bytes, int... prefix) {
    if (bytes.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if ((bytes[i] & 0xFF) != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
