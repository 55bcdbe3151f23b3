package dev.colloquy.bench;

import java.util.List;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/** The two sides a streaming benchmark's clients read: the engine's turn API, and the mock model itself (the floor). */
final class StreamTargets {

  private static final MediaType JSON = MediaType.get("application/json");

  private StreamTargets() {}

  /** Turns over the engine's SSE API, one session per stream. */
  static TurnLoad.Target engine(String base, String authorization, List<String> sessionIds) {
    return new TurnLoad.Target() {
      @Override
      public Request request(int stream, int turn) {
        return new Request.Builder().url(base + "/v1/sessions/" + sessionIds.get(stream) + "/turns")
            .header("Accept", "text/event-stream").header("Authorization", authorization)
            .post(RequestBody.create("{\"message\":\"benchmark question " + turn + "\"}", JSON))
            .build();
      }

      @Override
      public TurnLoad.LineReader reader() {
        String[] event = {""};
        return line -> {
          if (line.startsWith("event: ")) {
            event[0] = line.substring(7);
            return TurnLoad.Line.OTHER;
          }
          if (!line.startsWith("data: ")) {
            return TurnLoad.Line.OTHER;
          }
          return switch (event[0]) {
            case "token" -> TurnLoad.Line.TOKEN;
            case "turn.completed" -> TurnLoad.Line.COMPLETED;
            case "turn.failed", "turn.cancelled" -> TurnLoad.Line.FAILED;
            default -> TurnLoad.Line.OTHER;
          };
        };
      }
    };
  }

  /** Streamed chat completions straight from the mock model: what a client gets with no engine in between. */
  static TurnLoad.Target floor(String mockBaseUrl) {
    return new TurnLoad.Target() {
      @Override
      public Request request(int stream, int turn) {
        return new Request.Builder().url(mockBaseUrl + "/chat/completions").header("Accept", "text/event-stream")
            .post(RequestBody.create("{\"model\":\"mock\",\"stream\":true,\"max_tokens\":1024,"
                + "\"stream_options\":{\"include_usage\":true},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"benchmark question " + turn + "\"}]}", JSON))
            .build();
      }

      @Override
      public TurnLoad.LineReader reader() {
        return line -> {
          if (!line.startsWith("data: ")) {
            return TurnLoad.Line.OTHER;
          }
          if (line.equals("data: [DONE]")) {
            return TurnLoad.Line.COMPLETED;
          }
          if (line.contains("\"error\"")) {
            return TurnLoad.Line.FAILED;
          }
          int content = line.indexOf("\"content\":\"");
          return content >= 0 && line.charAt(content + 11) != '"' ? TurnLoad.Line.TOKEN : TurnLoad.Line.OTHER;
        };
      }
    };
  }
}
