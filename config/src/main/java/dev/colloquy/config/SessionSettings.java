package dev.colloquy.config;

import java.time.Duration;

/** How sessions and their turns behave over time. */
public record SessionSettings(
    Duration idleTimeout,
    Duration passivationTimeout,
    Duration disconnectGrace,
    BusyPolicy busyPolicy,
    int maxQueuedTurns,
    int snapshotEvery,
    int historyWindow,
    int retrievalLimit,
    Duration retrievalTimeout,
    Duration idleCheckInterval,
    int maxTurns,
    Checkpoint checkpoint) {

  /**
   * The largest history window: a session keeps its newest 50 turns in memory (SessionState.TURNS_KEPT),
   * so at most 100 messages of history can come from them.
   */
  public static final int MAX_HISTORY_WINDOW = 100;
  public static final int MAX_TURNS = 1_000_000;

  /**
   * A running turn journals what it has streamed every {@code frames} frames or every {@code interval},
   * whichever comes first, so that another node can take it over after a crash. A node writes at most
   * {@code maxWriting} checkpoints at once; a turn whose checkpoint finds none free tries again at its
   * next interval, streaming on within its reserve meanwhile.
   */
  public record Checkpoint(int frames, Duration interval, int maxWriting) {

    /**
     * How many frames a turn may stream beyond its last journaled checkpoint: two intervals, so the
     * next checkpoint is normally written long before the stream would have to wait for it.
     */
    public int reserve() {
      return 2 * frames;
    }
  }

  static SessionSettings create(SettingsReader reader) {
    return new SessionSettings(
        reader.positiveDuration("colloquy.session.idle-timeout"),
        reader.positiveDuration("colloquy.session.passivation-timeout"),
        reader.positiveDuration("colloquy.session.disconnect-grace"),
        reader.oneOf("colloquy.session.busy-policy", BusyPolicy.class),
        reader.intInRange("colloquy.session.max-queued-turns", 1, 1000),
        reader.intInRange("colloquy.session.snapshot-every", 1, 100_000),
        reader.intInRange("colloquy.session.history-window", 0, MAX_HISTORY_WINDOW),
        reader.intInRange("colloquy.session.retrieval-limit", 1, 100),
        reader.positiveDuration("colloquy.session.retrieval-timeout"),
        reader.positiveDuration("colloquy.session.idle-check-interval"),
        reader.intInRange("colloquy.session.max-turns", 1, MAX_TURNS),
        new Checkpoint(reader.intInRange("colloquy.session.checkpoint.frames", 1, 100_000),
            reader.positiveDuration("colloquy.session.checkpoint.interval"),
            reader.intInRange("colloquy.session.checkpoint.max-writing", 1, 1_000_000)));
  }
}
