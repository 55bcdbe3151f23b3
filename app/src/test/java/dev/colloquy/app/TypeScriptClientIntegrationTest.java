package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.http.SessionRoutes;
import dev.colloquy.persistence.tenant.TenantStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TypeScript client ({@code clients/typescript}) against the real server with the mock model:
 * its build and unit tests ({@code npm test}), then {@code test/live.mjs} with a real tenant key: streamed turns, resume after a cut
 * connection, fan-out, abort that cancels, sessions, journal, errors and knowledge.
 */
class TypeScriptClientIntegrationTest {

  /** Turns of about a second, so an abort lands while the model still streams. */
  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(
      TestColloquy.fastMock().withTokens(40).withDelays(Duration.ofMillis(50), Duration.ofMillis(25)), Map.of());

  @Test
  void theClientStreamsResumesCancelsAndManagesSessionsAndKnowledge() throws Exception {
    NodeProject client = NodeProject.installed("clients/typescript");
    NodeProject.Run unitTests = client.exec(List.of("npm", "test"), Map.of(), Duration.ofMinutes(2));
    assertThat(unitTests.exitCode()).as(unitTests.output()).isZero();
    assertThat(unitTests.stdout()).contains("# fail 0");
    TestColloquy.api(app.colloquy());
    String key = new TenantStore(app.colloquy().database().dataSource())
        .issueKey(SessionRoutes.DEFAULT_TENANT).orElseThrow().apiKey();

    NodeProject.Run live = client.node("test/live.mjs", List.of(),
        Map.of("COLLOQUY_BASE_URL", app.colloquy().baseUrl(), "COLLOQUY_API_KEY", key), Duration.ofMinutes(3));

    assertThat(live.exitCode()).as(live.output()).isZero();
    assertThat(live.stdout()).contains("resumed after id", "fan-out: one run completed, one failed",
        "aborted: the turn ended turn.cancelled", "knowledge: uploaded", "live: all checks passed");
  }
}
