package dev.colloquy.config;

/**
 * A setting that is missing or invalid. Its message is the one line an operator sees at start-up: it
 * names the HOCON key and, where there is one, the environment variable that sets it.
 */
public final class SettingsException extends RuntimeException {

  private final String key;

  public SettingsException(String key, String envVar, String problem) {
    super("Invalid setting " + key + (envVar == null ? "" : " (env " + envVar + ")") + ": " + problem);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
