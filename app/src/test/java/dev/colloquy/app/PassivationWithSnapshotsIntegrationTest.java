package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Passivation and recovery with a snapshot every 2 events: the session comes back from a snapshot plus the events after it. */
class PassivationWithSnapshotsIntegrationTest extends PassivationScenarios {

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.session.passivation-timeout", PASSIVATION.toMillis() + "ms",
      "colloquy.session.snapshot-every", 2));

  @Override
  RunningColloquy app() {
    return app;
  }

  @Override
  void checkSnapshots(long snapshots) {
    assertThat(snapshots).as("snapshots stored for the session").isPositive();
  }
}
