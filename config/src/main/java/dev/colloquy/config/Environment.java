package dev.colloquy.config;

/** Where the engine runs. Production keeps message content out of the logs. */
public enum Environment {
  DEVELOPMENT,
  PRODUCTION
}
