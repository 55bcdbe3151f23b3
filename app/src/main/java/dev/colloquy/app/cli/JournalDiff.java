package dev.colloquy.app.cli;

import dev.colloquy.engine.domain.RunSpec;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionState;
import dev.colloquy.engine.session.TurnRecord;
import dev.colloquy.persistence.JournalEntry;
import java.io.PrintWriter;
import java.util.List;
import java.util.Objects;

/**
 * {@code colloquy replay --diff A B}: where two sessions' histories part, turn by turn, on what a
 * developer compares after a fork: the message, the models, how the turn ended and the answer.
 */
final class JournalDiff {

  private static final int QUOTE = 200;

  private JournalDiff() {}

  /** Prints the comparison; the number of the first turn at which they differ, or 0 when none does. */
  static int print(String idA, List<JournalEntry> a, String idB, List<JournalEntry> b, PrintWriter out) {
    SessionState stateA = rebuilt(idA, a);
    SessionState stateB = rebuilt(idB, b);
    out.printf("A %s: %d turns%s%n", idA, stateA.turns().size(), origin(a));
    out.printf("B %s: %d turns%s%n", idB, stateB.turns().size(), origin(b));
    int common = Math.min(stateA.turns().size(), stateB.turns().size());
    for (int i = 0; i < common; i++) {
      TurnRecord turnA = stateA.turns().get(i);
      TurnRecord turnB = stateB.turns().get(i);
      if (!same(turnA, turnB)) {
        out.printf("%nA and B diverge at turn %d:%n", i + 1);
        side(out, "message", quote(turnA.message()), quote(turnB.message()));
        side(out, "models", models(turnA).toString(), models(turnB).toString());
        side(out, "ended", ending(turnA), ending(turnB));
        side(out, "answer", quote(answer(turnA)), quote(answer(turnB)));
        return i + 1;
      }
    }
    if (stateA.turns().size() == stateB.turns().size()) {
      out.printf("%nA and B agree on all %d turns%n", common);
      return 0;
    }
    String longer = stateA.turns().size() > stateB.turns().size() ? "A" : "B";
    out.printf("%nA and B agree on their first %d turns; only %s has turn %d%n", common, longer, common + 1);
    return common + 1;
  }

  private static SessionState rebuilt(String sessionId, List<JournalEntry> entries) {
    SessionState state = SessionState.empty(sessionId);
    for (JournalEntry entry : entries) {
      state = state.apply(entry.event());
    }
    return state;
  }

  private static String origin(List<JournalEntry> entries) {
    return entries.stream().map(JournalEntry::event).filter(ChatSession.SessionForked.class::isInstance)
        .map(ChatSession.SessionForked.class::cast).findFirst()
        .map(forked -> " (forked from " + forked.fromSessionId() + " at turn " + forked.atTurn() + ")").orElse("");
  }

  /** The same turn as far as a developer comparing answers cares; ids and times differ in any fork. */
  private static boolean same(TurnRecord a, TurnRecord b) {
    return Objects.equals(a.message(), b.message()) && models(a).equals(models(b)) && ending(a).equals(ending(b))
        && Objects.equals(answer(a), answer(b));
  }

  private static String answer(TurnRecord turn) {
    return turn.outcome() == null ? null : turn.outcome().text();
  }

  private static List<String> models(TurnRecord turn) {
    return turn.runs().stream().map(RunSpec::model).toList();
  }

  private static String ending(TurnRecord turn) {
    String status = turn.status().name().toLowerCase();
    return turn.endCode() == null ? status : status + " " + turn.endCode();
  }

  private static void side(PrintWriter out, String what, String a, String b) {
    out.printf("  %-8s A: %s%n", what, a);
    out.printf("  %-8s B: %s%n", "", b);
  }

  private static String quote(String text) {
    if (text == null) {
      return "-";
    }
    String flat = text.replace("\n", "\\n");
    return "\"" + (flat.length() > QUOTE ? flat.substring(0, QUOTE) + "…" : flat) + "\"";
  }
}
