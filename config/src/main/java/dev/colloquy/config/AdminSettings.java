package dev.colloquy.config;

import java.util.Optional;

/** Access to the developer endpoints (the journal). */
public record AdminSettings(Optional<String> token) {

  static AdminSettings create(SettingsReader reader) {
    return new AdminSettings(reader.optionalString("colloquy.admin.token"));
  }

  /** Never prints the token. */
  @Override
  public String toString() {
    return "AdminSettings[token=" + (token.isPresent() ? "***" : "(none)") + "]";
  }
}
