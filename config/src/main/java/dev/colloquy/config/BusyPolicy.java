package dev.colloquy.config;

/** What a message sent while a turn is running does. */
public enum BusyPolicy {
  /** Refuse it with 409 TURN_IN_PROGRESS, naming the running turn. */
  REJECT,
  /** Accept it and run it once the turns before it have ended. */
  ENQUEUE
}
