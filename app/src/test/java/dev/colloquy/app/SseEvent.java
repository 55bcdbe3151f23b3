package dev.colloquy.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** One dispatched Server-Sent Event: its {@code event:}, {@code id:} and (joined) {@code data:} fields. */
record SseEvent(String event, String id, String data) {

  private static final ObjectMapper JSON = new ObjectMapper();

  long number() {
    return Long.parseLong(id);
  }

  JsonNode json() {
    try {
      return JSON.readTree(data);
    } catch (JsonProcessingException e) {
      throw new AssertionError("data of event " + event + " #" + id + " is not JSON: " + data, e);
    }
  }

  String text(String field) {
    return json().path(field).asText();
  }

  boolean terminal() {
    return event.equals("turn.completed") || event.equals("turn.failed") || event.equals("turn.cancelled");
  }
}
