package dev.colloquy.engine.session;

import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.domain.TurnAttempt;
import dev.colloquy.engine.domain.TurnProgress;
import dev.colloquy.engine.turn.Transcript;
import java.util.List;
import java.util.function.Function;

/**
 * How a session starts its turns from what their checkpoints journaled: the reservation a new or
 * restarted attempt opens with, and what an attempt a lost node cut short leaves behind.
 */
final class TurnCheckpoints {

  /** Why a turn runs again, as its {@code turn.restarted} frame says. */
  static final String NODE_LOST = "node_lost";

  private TurnCheckpoints() {}

  /** The checkpoint journaled with an attempt's start: nothing streamed, the ids after {@code lastId} reserved. */
  static TurnProgress.Checkpoint opening(long lastId, SessionSettings.Checkpoint settings) {
    return new TurnProgress.Checkpoint(List.of(), List.of(), List.of(), List.of(), 0, List.of(),
        lastId + settings.reserve(), null, null, List.of());
  }

  /**
   * The transcript of a turn's current attempt: after the frames of the attempts before it, releasing
   * the ids its checkpoints reserved (turns accepted before checkpoints existed: a fresh reserve).
   */
  static Transcript transcript(String sessionId, TurnRecord turn, SessionSettings.Checkpoint settings) {
    long released = turn.progress() == null ? settings.reserve() : turn.progress().reservedThrough();
    return new Transcript(sessionId, turn.turnId(), turn.traceId(), turn.runs(),
        Transcript.earlierFrames(sessionId, turn.turnId(), turn.traceId(), turn.attempts(), turn.runs()), released);
  }

  /**
   * The attempt of {@code turn} its node's crash cut short, as far as its checkpoints journaled it;
   * the restart frame takes the id after its reservation, which no client can have seen.
   */
  static TurnAttempt cutShort(TurnRecord turn, Function<String, String> providerOfModel) {
    TurnProgress progress = turn.progress();
    return new TurnAttempt(turn.runs(), progress.outcome(turn.runs(), providerOfModel, false),
        progress.reservedThrough() + 1, NODE_LOST);
  }
}
