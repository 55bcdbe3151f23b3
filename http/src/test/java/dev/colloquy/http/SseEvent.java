package dev.colloquy.http;

import com.fasterxml.jackson.databind.JsonNode;

/** One Server-Sent Event as a browser's EventSource would dispatch it. */
record SseEvent(String name, String id, String data) {

  JsonNode json() {
    try {
      return Json.MAPPER.readTree(data);
    } catch (Exception e) {
      throw new AssertionError("data is not JSON: " + data, e);
    }
  }
}
