package dev.colloquy.persistence.tenant;

import java.util.Locale;

/**
 * What a key opens. A {@link #SECRET} key ({@code ck_…}) is the tenant's own credential for its whole
 * API, kept on its servers. A {@link #PUBLIC} key ({@code cpk_…}) is meant to be seen: a web page embeds
 * it in the widget's script tag, so it opens only the widget's routes, only from the tenant's allowed
 * origins, and only for the visitor the widget names. Both are stored as the SHA-256 of their secret.
 */
public enum KeyKind {
  SECRET("ck_"),
  PUBLIC("cpk_");

  private final String prefix;

  KeyKind(String prefix) {
    this.prefix = prefix;
  }

  public String prefix() {
    return prefix;
  }

  /** The name stored in {@code api_keys.kind} and shown by the admin API. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static KeyKind fromId(String id) {
    return valueOf(id.toUpperCase(Locale.ROOT));
  }
}
