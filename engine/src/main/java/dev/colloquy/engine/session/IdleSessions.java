package dev.colloquy.engine.session;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where the idle-session reaper learns which sessions may be idle: open sessions whose last
 * activity is before a cutoff. The answer may lag behind the journal; each session decides for
 * itself whether it really is idle.
 */
public interface IdleSessions {

  /** The tenants that have an open session whose last activity is before {@code cutoff}. */
  CompletionStage<List<String>> tenantsWithOpenSessionsBefore(Instant cutoff);

  /** Up to {@code limit} of the tenant's open sessions whose last activity is before {@code cutoff}, oldest first. */
  CompletionStage<List<String>> openWithLastActivityBefore(String tenantId, Instant cutoff, int limit);
}
