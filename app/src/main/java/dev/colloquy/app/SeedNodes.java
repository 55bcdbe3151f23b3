package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code COLLOQUY_SEED_NODES} as Pekko's {@code pekko.cluster.seed-nodes} list. HOCON substitutes an
 * environment variable as a string, never as a list, so the variable is read here: a HOCON-style
 * list ({@code ["pekko://colloquy@a:25520", "pekko://colloquy@b:25520"]}) or plain commas.
 */
final class SeedNodes {

  static final String VARIABLE = "COLLOQUY_SEED_NODES";

  private SeedNodes() {}

  static Config fromEnvironment() {
    return from(System.getenv(VARIABLE));
  }

  static Config from(String value) {
    if (value == null || value.isBlank()) {
      return ConfigFactory.empty();
    }
    List<String> seeds = Arrays.stream(value.replaceAll("[\\[\\]\"\\s]", "").split(","))
        .filter(seed -> !seed.isEmpty())
        .toList();
    return ConfigFactory.parseMap(Map.of("pekko.cluster.seed-nodes", seeds));
  }
}
