package dev.colloquy.persistence.readside;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** A tenant's sessions, or one user's of them, from the read side, most recently active first. */
public interface SessionListing {

  List<String> STATUSES = List.of("open", "escalated", "closed");

  /**
   * @param userId the user whose sessions to list; empty lists every session of the tenant
   * @param status {@code open} or {@code closed}; empty lists both (never deleted sessions)
   * @param titleContains lists only sessions whose title contains it, ignoring case (taken literally:
   *     no wildcards); empty lists every title and untitled sessions
   * @param after the cursor of the previous page, if any (of a page listed with the same filters)
   */
  CompletionStage<SessionPage> list(String tenantId, Optional<String> userId, Optional<String> status,
      Optional<String> titleContains, int limit, Optional<SessionCursor> after);
}
