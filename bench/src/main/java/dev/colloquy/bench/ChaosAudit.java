package dev.colloquy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the chaos run's clients saw, held against the journal afterwards: every turn the server
 * acknowledged is journaled exactly once, every journaled turn ended exactly once, each the way its
 * client was told, and no session's journal has a gap in its sequence numbers (read from the table
 * itself, since the read journal would stop at a gap).
 */
final class ChaosAudit {

  /** What the audit found; the run holds its promises when {@link #holds()}. */
  record Findings(int sessions, int acknowledged, int lost, int duplicated, int journaled, int unended, int endedTwice,
      int sequenceGaps, int toldOtherwise, Map<String, Integer> endings, List<String> problems) {

    boolean holds() {
      return problems.isEmpty();
    }
  }

  private ChaosAudit() {}

  static Findings of(ChaosNode node, List<ChaosClient.Turn> turns, List<String> sessions) throws Exception {
    List<String> problems = new ArrayList<>();
    Map<String, List<JsonNode>> journals = new HashMap<>();
    try (HttpClient http = HttpClient.newHttpClient()) {
      for (String sessionId : sessions) {
        HttpResponse<String> journal = http.send(HttpRequest.newBuilder(
                URI.create(node.baseUrl() + "/v1/sessions/" + sessionId + "/journal"))
            .header("Authorization", "Bearer " + node.apiKey()).build(), HttpResponse.BodyHandlers.ofString());
        if (journal.statusCode() != 200) {
          problems.add("session " + sessionId + ": journal answered HTTP " + journal.statusCode());
          continue;
        }
        List<JsonNode> events = new ArrayList<>();
        Json.MAPPER.readTree(journal.body()).path("events").forEach(events::add);
        journals.put(sessionId, events);
      }
    }
    int gaps = sequenceGaps(node, journals, problems);

    Map<String, Integer> accepted = new HashMap<>();
    Map<String, List<JsonNode>> ends = new HashMap<>();
    Map<String, Integer> keys = new HashMap<>();
    for (List<JsonNode> events : journals.values()) {
      for (JsonNode entry : events) {
        String type = entry.path("type").asText();
        JsonNode event = entry.path("event");
        if (type.equals("TurnAccepted")) {
          accepted.merge(event.path("turn_id").asText(), 1, Integer::sum);
          if (!event.path("idempotency_key").isNull()) {
            keys.merge(event.path("idempotency_key").asText(), 1, Integer::sum);
          }
        } else if (type.equals("TurnCompleted") || type.equals("TurnFailed") || type.equals("TurnCancelled")) {
          ends.computeIfAbsent(event.path("turn_id").asText(), id -> new ArrayList<>()).add(entry);
        }
      }
    }

    int acknowledged = 0;
    int lost = 0;
    int duplicated = 0;
    int toldOtherwise = 0;
    for (ChaosClient.Turn turn : turns) {
      if (turn.acknowledged()) {
        acknowledged++;
        int times = accepted.getOrDefault(turn.turnId(), 0);
        if (times == 0) {
          lost++;
          problems.add("acknowledged turn " + turn.turnId() + " is not in the journal");
        }
        if (times > 1 || keys.getOrDefault(turn.idempotencyKey(), 0) > 1) {
          duplicated++;
          problems.add("turn " + turn.turnId() + " (key " + turn.idempotencyKey() + ") is in the journal more than once");
        }
      }
      List<JsonNode> ended = turn.turnId() == null ? List.of() : ends.getOrDefault(turn.turnId(), List.of());
      if (turn.turnId() != null && ended.size() == 1 && !sameEnding(turn, ended.getFirst())) {
        toldOtherwise++;
        problems.add("turn " + turn.turnId() + " ended " + ended.getFirst().path("type").asText()
            + " in the journal but its client was told " + turn.ending() + " " + turn.code());
      }
    }

    int unended = 0;
    int endedTwice = 0;
    Map<String, Integer> endings = new TreeMap<>();
    for (String turnId : accepted.keySet()) {
      List<JsonNode> ended = ends.getOrDefault(turnId, List.of());
      if (ended.isEmpty()) {
        unended++;
        problems.add("journaled turn " + turnId + " never ended");
      } else if (ended.size() > 1) {
        endedTwice++;
        problems.add("journaled turn " + turnId + " ended " + ended.size() + " times");
      } else {
        endings.merge(endingName(ended.getFirst()), 1, Integer::sum);
      }
    }
    endings.keySet().stream().filter(name -> name.startsWith("failed ") && !name.equals("failed INTERRUPTED"))
        .forEach(name -> problems.add(endings.get(name) + " turns " + name));
    return new Findings(journals.size(), acknowledged, lost, duplicated, accepted.size(), unended, endedTwice, gaps,
        toldOtherwise, endings, problems);
  }

  /** Sessions whose stored sequence numbers are not 1, 2, 3 … or that the read journal does not read whole. */
  private static int sequenceGaps(ChaosNode node, Map<String, List<JsonNode>> journals, List<String> problems)
      throws Exception {
    int gaps = 0;
    try (Connection connection = node.database();
        PreparedStatement query = connection.prepareStatement(
            "SELECT sequence_number FROM event_journal WHERE persistence_id = ? ORDER BY sequence_number")) {
      for (Map.Entry<String, List<JsonNode>> journal : journals.entrySet()) {
        query.setString(1, ChatSession.persistenceId(journal.getKey()).id());
        List<Long> stored = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
          while (rows.next()) {
            stored.add(rows.getLong(1));
          }
        }
        boolean contiguous = true;
        for (int i = 0; i < stored.size(); i++) {
          contiguous &= stored.get(i) == i + 1;
        }
        if (!contiguous || stored.size() != journal.getValue().size()) {
          gaps++;
          problems.add("session " + journal.getKey() + ": stored sequence numbers " + stored.size()
              + " (contiguous: " + contiguous + "), journal read " + journal.getValue().size());
        }
      }
    }
    return gaps;
  }

  private static boolean sameEnding(ChaosClient.Turn turn, JsonNode journaled) {
    return endingName(journaled).equals(turn.ending().replace("turn.", "")
        + (turn.ending().equals("turn.failed") ? " " + turn.code() : ""));
  }

  private static String endingName(JsonNode entry) {
    return switch (entry.path("type").asText()) {
      case "TurnCompleted" -> "completed";
      case "TurnCancelled" -> "cancelled";
      default -> "failed " + entry.path("event").path("code").asText();
    };
  }
}
