package dev.colloquy.engine.session;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The tags a session's events carry, so that the read side can be consumed by a fixed number of
 * projection instances. A session always maps to the same tag: {@link String#hashCode} is specified,
 * so the mapping survives restarts and JVMs. Changing {@link #COUNT} needs a projection rebuild.
 */
public final class SessionTags {

  public static final int COUNT = 4;

  private static final List<String> ALL = IntStream.range(0, COUNT).mapToObj(i -> "session-" + i).toList();

  private SessionTags() {}

  public static String of(String sessionId) {
    return ALL.get(Math.floorMod(sessionId.hashCode(), COUNT));
  }

  public static List<String> all() {
    return ALL;
  }
}
