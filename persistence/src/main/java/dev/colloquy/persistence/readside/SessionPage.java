package dev.colloquy.persistence.readside;

import java.util.List;
import java.util.Optional;

/** One page of the session list and, when more follow, the cursor of the next page. */
public record SessionPage(List<SessionRow> sessions, Optional<SessionCursor> next) {

  public SessionPage {
    sessions = List.copyOf(sessions);
  }
}
