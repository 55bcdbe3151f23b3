package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SeedNodesTest {

  @Test
  void aHoconStyleListAndPlainCommasGiveTheSameSeedNodes() {
    String first = "pekko://colloquy@colloquy-1:25520";
    String second = "pekko://colloquy@colloquy-2:25520";
    assertThat(SeedNodes.from("[\"" + first + "\", \"" + second + "\"]").getStringList("pekko.cluster.seed-nodes"))
        .containsExactly(first, second);
    assertThat(SeedNodes.from(first + "," + second).getStringList("pekko.cluster.seed-nodes"))
        .containsExactly(first, second);
  }

  @Test
  void noVariableLeavesTheConfiguredSeedNodes() {
    assertThat(SeedNodes.from(null).isEmpty()).isTrue();
    assertThat(SeedNodes.from(" ").isEmpty()).isTrue();
    assertThat(Colloquy.loadConfig(com.typesafe.config.ConfigFactory.empty()).getStringList("pekko.cluster.seed-nodes"))
        .isEmpty();
  }
}
