package dev.colloquy.app;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Model outputs meant to break a stream: line breaks of every kind, NUL and other controls, lone
 * surrogates, text that would start an SSE field ({@code data:}, {@code event:}, {@code id:}) or end
 * the JSON around it, tokens of 1 MB, and bytes that are not UTF-8. Each token is what the upstream
 * puts between the quotes of a chunk's {@code content} (its wire bytes) and what a client must read
 * for it (its expected text): the same text, except where no UTF-8 text can hold what was sent. There
 * a client reads U+FFFD, as a UTF-8 decoder gives it: one per maximal ill-formed byte subsequence
 * (Java's decoder and the WHATWG one agree), and one per surrogate that is not half of a pair.
 */
final class NastyTokens {

  /** A token as the upstream sends it and as a client must read it. */
  record Token(byte[] wire, String expected) {}

  /** Tokens of this many characters at least are the 1 MB ones. */
  static final int LARGE = 1_000_000;

  private static final String[] BREAKS = {"\r", "\n", "\r\n", "\n\r", "\r\r\n", "\n\n", "\r\n\r\n", "\r\r"};
  private static final String[] FIELDS = {"data:", "data: ", "data: {\"text\":\"x\"}", "event:", "event: turn.completed",
      "event: token", "id:", "id: 999999", "id: 0", "retry: 0", ":", ": keep-alive", "[DONE]", "data: [DONE]",
      "event: message", "data:data:", "id: \u0000"};
  private static final String[] JSON_BREAKERS = {"\"", "\\", "\"}", "\"}]}", "{\"text\":\"", "\\u0000", "\\n",
      "\\", "\\\\\"", "/", "</script>", "\u2028", "\u2029"};
  private static final String[] LONE_SURROGATES = {"\ud800", "\udbff", "\udc00", "\udfff", "\udc00\ud800",
      "\ud83d", "\ude00"};
  private static final String[] UNICODE = {"é", "中文", "\ud83d\ude00", "\ud83d\udc69\u200d\ud83d\udcbb", "\ufeff",
      "e\u0301", "\u202e", "\ufffe", "\uffff", "\ufffd", "\u0085", "\u00a0", "\u0000\u0000", "\ud800\udc00",
      "\udbff\udfff", "𝕏"};
  private static final int[][] NOT_UTF8 = {{0x80}, {0xBF}, {0xC0, 0x80}, {0xC1, 0xBF}, {0xE0, 0x80, 0x80},
      {0xED, 0xA0, 0x80}, {0xED, 0xBF, 0xBF}, {0xF4, 0x90, 0x80, 0x80}, {0xF5}, {0xF8, 0x88, 0x80, 0x80, 0x80},
      {0xFE}, {0xFF}, {0xE2, 0x82}, {0xF0, 0x9F, 0x98}, {0xC3}, {0xF0, 0x80, 0x80, 0x80}, {0xE2, 0x28, 0xA1},
      {0xC3, 0xC3}, {0x80, 0x80, 0x80}};
  private static final String WORDS = "abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789.,;!?-";

  private final Random random;

  NastyTokens(long seed) {
    this.random = new Random(seed);
  }

  /** One model output: 1 to 12 tokens, with a 1 MB token in it when {@code large}. */
  List<Token> output(boolean large) {
    int count = 1 + random.nextInt(12);
    int largeAt = large ? random.nextInt(count) : -1;
    List<Token> tokens = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      tokens.add(i == largeAt ? large() : token());
    }
    return tokens;
  }

  private Token token() {
    int kind = random.nextInt(100);
    if (kind < 12) {
      return notUtf8();
    }
    StringBuilder text = new StringBuilder();
    int pieces = 1 + random.nextInt(4);
    for (int i = 0; i < pieces; i++) {
      text.append(piece());
    }
    return text(text.toString());
  }

  private String piece() {
    return switch (random.nextInt(9)) {
      case 0 -> pick(BREAKS);
      case 1 -> pick(BREAKS) + pick(FIELDS) + pick(BREAKS);
      case 2 -> pick(FIELDS);
      case 3 -> String.valueOf((char) random.nextInt(0x20)) + (random.nextBoolean() ? "\u007f" : "");
      case 4 -> pick(JSON_BREAKERS);
      case 5 -> pick(LONE_SURROGATES);
      case 6 -> pick(UNICODE);
      case 7 -> random.nextBoolean() ? " " : "\t";
      default -> words(1 + random.nextInt(12));
    };
  }

  /** A token of 1 MB or so: the other kinds of text over and over, with a line break every few hundred characters. */
  private Token large() {
    StringBuilder text = new StringBuilder(LARGE + 1000);
    while (text.length() < LARGE) {
      text.append(words(200 + random.nextInt(400))).append(piece());
    }
    return text(text.toString());
  }

  /** Bytes that are not UTF-8 between plain letters and a valid character or two. */
  private Token notUtf8() {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    int pieces = 1 + random.nextInt(5);
    for (int i = 0; i < pieces; i++) {
      wire.writeBytes(words(random.nextInt(4)).getBytes(StandardCharsets.US_ASCII));
      if (random.nextInt(4) == 0) {
        wire.writeBytes(pick(UNICODE).replace("\u0000", "").replace("\u0085", "").getBytes(StandardCharsets.UTF_8));
      }
      for (int b : NOT_UTF8[random.nextInt(NOT_UTF8.length)]) {
        wire.write(b);
      }
    }
    byte[] bytes = wire.toByteArray();
    return new Token(bytes, new String(bytes, StandardCharsets.UTF_8));
  }

  /** A text as the upstream writes it in JSON, in one of two styles: UTF-8 as it is, or every non-ASCII character escaped. */
  private Token text(String text) {
    boolean escapeAll = random.nextBoolean();
    StringBuilder json = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append(random.nextBoolean() ? "\\n" : "\\u000a");
        case '\r' -> json.append(random.nextBoolean() ? "\\r" : "\\u000D");
        case '\t' -> json.append("\\t");
        case '/' -> json.append(random.nextBoolean() ? "\\/" : "/");
        default -> {
          if (c < 0x20 || (Character.isSurrogate(c) && !pair) || (c > 0x7e && escapeAll)) {
            json.append(String.format("\\u%04x", (int) c));
          } else if (pair) {
            json.append(c).append(text.charAt(i + 1));
            i++;
          } else {
            json.append(c);
          }
        }
      }
    }
    return new Token(json.toString().getBytes(StandardCharsets.UTF_8), wellFormed(text));
  }

  private static String wellFormed(String text) {
    StringBuilder fixed = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        fixed.append(c).append(text.charAt(++i));
      } else {
        fixed.append(Character.isSurrogate(c) ? '\ufffd' : c);
      }
    }
    return fixed.toString();
  }

  private String words(int length) {
    StringBuilder words = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      words.append(WORDS.charAt(random.nextInt(WORDS.length())));
    }
    return words.toString();
  }

  private String pick(String[] choices) {
    return choices[random.nextInt(choices.length)];
  }
}
