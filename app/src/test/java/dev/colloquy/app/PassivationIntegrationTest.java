package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Passivation and recovery with the default snapshot interval: a short session comes back from its journal alone. */
class PassivationIntegrationTest extends PassivationScenarios {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(),
      Map.of("colloquy.session.passivation-timeout", PASSIVATION.toMillis() + "ms"));

  @Override
  RunningColloquy app() {
    return app;
  }

  @Override
  void checkSnapshots(long snapshots) {
    assertThat(snapshots).as("snapshots of a session shorter than the snapshot interval").isZero();
  }
}
