package dev.colloquy.engine.session;

import dev.colloquy.engine.session.ChatSession.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A journal exported from another installation, checked before a single event of it is written: it
 * must read as one session's history from its opening on, so that the new session recovers exactly
 * as the old one would have. It is written as one atomic batch, so a refused or failed import leaves
 * nothing behind and no journal ever has a gap.
 */
public final class ImportedJournal {

  private ImportedJournal() {}

  /**
   * Why {@code events} cannot open a session, naming the first event at fault (1-based); empty when they
   * can. Besides their order, their texts must keep the sizes of this engine's own sessions ({@link ImportedBounds}).
   */
  public static Optional<String> problem(List<Event> events) {
    if (events.isEmpty()) {
      return Optional.of("The journal has no events");
    }
    Set<String> pending = new HashSet<>();
    Set<String> accepted = new HashSet<>();
    boolean closed = false;
    for (int i = 0; i < events.size(); i++) {
      String at = "event " + (i + 1) + " (" + events.get(i).getClass().getSimpleName() + "): ";
      String problem = incomplete(events.get(i));
      problem = problem != null ? problem : switch (events.get(i)) {
        case ChatSession.SessionOpened opened -> i == 0 ? null : "a session is opened once, by its first event";
        case ChatSession.SessionForked forked -> i == 1 ? null : "a fork's inheritance follows its opening directly";
        case ChatSession.TurnAccepted turn -> closed ? "the session was closed before"
            : accepted.add(turn.turnId()) ? addPending(pending, turn.turnId()) : "turn " + turn.turnId() + " was accepted before";
        case ChatSession.TurnEnded ended -> pending.remove(ended.turnId()) ? null : notPending(ended.turnId());
        case ChatSession.TurnCheckpointed checkpoint -> pending.contains(checkpoint.turnId()) ? null
            : notPending(checkpoint.turnId());
        case ChatSession.TurnRestarted restarted -> pending.contains(restarted.turnId()) ? null
            : notPending(restarted.turnId());
        case ChatSession.SessionClosed close -> {
          closed = true;
          yield null;
        }
        case ChatSession.SessionReopened reopened -> {
          boolean wasClosed = closed;
          closed = false;
          yield wasClosed ? null : "a session reopens only after it was closed";
        }
        case ChatSession.SessionDeleted deleted -> "the session was deleted: there is nothing to import";
        case ChatSession.SessionRenamed renamed -> null;
        case ChatSession.SessionEscalated escalated -> closed ? "the session was closed before" : null;
        case ChatSession.SessionHandedBack handedBack -> null;
        case ChatSession.NarrativeStateMerged merged -> null;
        case ChatSession.HistorySummarized summarized -> null;
      };
      if (i == 0 && !(events.get(0) instanceof ChatSession.SessionOpened)) {
        problem = "the first event must open the session (SessionOpened)";
      }
      if (problem != null) {
        return Optional.of(at + problem);
      }
    }
    return ImportedBounds.problem(events);
  }

  /** A field without which the event cannot be applied, when one is missing. */
  private static String incomplete(Event event) {
    return switch (event) {
      case ChatSession.TurnAccepted turn -> turn.turnId() == null || turn.message() == null || turn.runs() == null
          || turn.runs().isEmpty() ? "a turn needs its turn_id, message and runs" : null;
      case ChatSession.TurnEnded ended -> ended.turnId() == null || ended.outcome() == null
          ? "a turn's ending needs its turn_id and outcome" : null;
      case ChatSession.TurnCheckpointed checkpoint -> checkpoint.turnId() == null || checkpoint.checkpoint() == null
          ? "a checkpoint needs its turn_id and checkpoint" : null;
      case ChatSession.TurnRestarted restarted -> restarted.turnId() == null || restarted.cutShort() == null
          ? "a restart needs its turn_id and the attempt cut short" : null;
      case ChatSession.SessionEscalated escalated -> escalated.reason() == null || escalated.at() == null
          ? "an escalation needs its reason and time (at)" : null;
      case ChatSession.HistorySummarized summarized -> summarized.summary() == null || summarized.at() == null
          ? "a rolling summary needs its summary and time (at)" : null;
      default -> event.at() == null ? "the event has no time (at)" : null;
    };
  }

  private static String addPending(Set<String> pending, String turnId) {
    pending.add(turnId);
    return null;
  }

  private static String notPending(String turnId) {
    return "turn " + turnId + " was not accepted before, or has ended";
  }

  /** The events as session {@code sessionId} of the importing tenant and user journals them. */
  static List<Event> owned(String sessionId, String tenantId, String userId, List<Event> events) {
    List<Event> owned = new ArrayList<>(events);
    ChatSession.SessionOpened opened = (ChatSession.SessionOpened) events.getFirst();
    owned.set(0, new ChatSession.SessionOpened(sessionId, tenantId, userId, opened.persona(), opened.metadata(),
        opened.at(), opened.characterId(), opened.context()));
    return owned;
  }
}
