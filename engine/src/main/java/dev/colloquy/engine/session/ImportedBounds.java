package dev.colloquy.engine.session;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.RunOutcome;
import dev.colloquy.engine.domain.TurnOutcome;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.session.ChatSession.Event;
import dev.colloquy.engine.turn.Transcript;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The sizes an imported journal's texts must keep: those of a session this engine writes itself,
 * which every message that crosses nodes is reckoned on (the engine's reference.conf). An 8 MiB body
 * could otherwise hold one answer of 7 MiB, and the session made of it would answer its views, its
 * turns' replays and its forks with messages larger than any Artery frame, which are dropped.
 */
final class ImportedBounds {

  /** A turn's message: the most {@code colloquy.http.max-message-bytes} is reckoned with. */
  static final int MESSAGE_BYTES = 128 * 1024;
  /** A turn's answers, all its runs together, and what its checkpoints streamed: a turn's budget. */
  static final long ANSWER_BYTES = Transcript.ANSWER_BUDGET_BYTES;
  static final int PERSONA_CHARS = 8_000;
  static final int METADATA_BYTES = 16 * 1024;
  /** The conversation a session was started from, all its messages together. */
  static final int CONTEXT_BYTES = 128 * 1024;
  /**
   * A narrative state, as merged so far. (A rolling summary is not bounded here: no view, reply or
   * fork carries it; it stays in the session's state and its prompts.)
   */
  static final int STATE_BYTES = 64 * 1024;
  static final int RUNS = 16;
  static final int CITATIONS = 100;

  private ImportedBounds() {}

  /** The first event whose texts pass a bound, and which bound, naming the event (1-based); empty when none does. */
  static Optional<String> problem(List<Event> events) {
    Map<String, Long> streamed = new HashMap<>();
    JsonNode narrative = null;
    for (int i = 0; i < events.size(); i++) {
      Event event = events.get(i);
      String problem = switch (event) {
        case ChatSession.SessionOpened opened -> opened(opened);
        case ChatSession.TurnAccepted accepted -> message(accepted.message());
        case ChatSession.TurnEnded ended -> outcome(ended.outcome());
        case ChatSession.TurnCheckpointed checkpoint -> streamed.merge(checkpoint.turnId(),
            bytes(checkpoint.checkpoint().texts()), Long::sum) > ANSWER_BYTES
            ? "its turn's checkpoints carry more than " + ANSWER_BYTES + " bytes of text" : null;
        case ChatSession.SessionForked forked -> forked(forked);
        case ChatSession.SessionRenamed renamed -> renamed.title() != null
            && renamed.title().length() > SessionState.MAX_TITLE_LENGTH
            ? "a title is at most " + SessionState.MAX_TITLE_LENGTH + " characters" : null;
        default -> null;
      };
      if (problem == null && (event instanceof ChatSession.NarrativeStateMerged || event instanceof ChatSession.SessionForked)) {
        // Merged as the session will merge them: the state it ends with is what its views carry.
        narrative = event instanceof ChatSession.NarrativeStateMerged merged
            ? (merged.delta() == null ? narrative : JsonMergePatch.apply(narrative, merged.delta()))
            : ((ChatSession.SessionForked) event).narrativeState();
        problem = json(narrative) > STATE_BYTES ? "the narrative state grows past " + STATE_BYTES + " bytes" : null;
      }
      if (problem != null) {
        return Optional.of("event " + (i + 1) + " (" + event.getClass().getSimpleName() + "): " + problem);
      }
    }
    return Optional.empty();
  }

  private static String opened(ChatSession.SessionOpened opened) {
    if (opened.persona() != null && opened.persona().length() > PERSONA_CHARS) {
      return "a persona is at most " + PERSONA_CHARS + " characters";
    }
    if (json(opened.metadata()) > METADATA_BYTES) {
      return "metadata is at most " + METADATA_BYTES + " bytes";
    }
    long context = opened.context() == null ? 0
        : opened.context().stream().map(ChatMessage::content).mapToLong(ImportedBounds::bytes).sum();
    return context > CONTEXT_BYTES ? "the conversation it starts from is at most " + CONTEXT_BYTES + " bytes" : null;
  }

  private static String forked(ChatSession.SessionForked forked) {
    if (forked.turns().size() >= SessionState.TURNS_KEPT) {
      return "a fork inherits at most " + (SessionState.TURNS_KEPT - 1) + " turns";
    }
    for (int t = 0; t < forked.turns().size(); t++) {
      TurnRecord turn = forked.turns().get(t);
      String problem = message(turn.message());
      problem = problem != null ? problem : outcome(turn.outcome());
      if (problem != null) {
        return "inherited turn " + (t + 1) + ": " + problem;
      }
    }
    return null;
  }

  private static String message(String message) {
    return bytes(message) > MESSAGE_BYTES ? "a turn's message is at most " + MESSAGE_BYTES + " bytes" : null;
  }

  private static String outcome(TurnOutcome outcome) {
    if (outcome == null) {
      return null;
    }
    if (outcome.runs() != null && outcome.runs().size() > RUNS) {
      return "a turn has at most " + RUNS + " runs";
    }
    if (outcome.citations() != null && outcome.citations().size() > CITATIONS) {
      return "a turn has at most " + CITATIONS + " citations";
    }
    long answers = outcome.runs() == null ? 0 : outcome.runs().stream().map(RunOutcome::text).mapToLong(ImportedBounds::bytes).sum();
    return answers > ANSWER_BYTES ? "a turn's answers, all its runs together, are at most " + ANSWER_BYTES + " bytes" : null;
  }

  private static long bytes(List<String> texts) {
    return texts == null ? 0 : texts.stream().mapToLong(ImportedBounds::bytes).sum();
  }

  private static long bytes(String text) {
    return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
  }

  private static long json(JsonNode node) {
    return node == null ? 0 : bytes(node.toString());
  }
}
