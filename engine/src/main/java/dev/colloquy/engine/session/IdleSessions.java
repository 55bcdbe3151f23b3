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

  CompletionStage<List<String>> openWithLastActivityBefore(Instant cutoff, int limit);
}
