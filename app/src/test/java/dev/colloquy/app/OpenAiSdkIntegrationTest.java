package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official {@code openai} npm package, unchanged but for its base URL and key, against a running
 * Colloquy: completions with and without a stream, the streaming helper, the model list, refusals as the
 * SDK's typed errors, and a session continued with {@code X-Session-Id} through default and
 * per-request headers ({@code clients/openai-sdk-check/check.mjs}).
 */
class OpenAiSdkIntegrationTest {

  @RegisterExtension
  static final MockProviders app = MockProviders.start();

  @Test
  void theOfficialSdkWorksAgainstColloquyUnchanged() throws Exception {
    NodeProject project = NodeProject.installed("clients/openai-sdk-check");

    NodeProject.Run run = project.node("check.mjs", List.of(), Map.of(
        "COLLOQUY_BASE_URL", app.colloquy().baseUrl(),
        "COLLOQUY_API_KEY", app.api().apiKey(),
        "COLLOQUY_MODEL", "beta/mock"), Duration.ofMinutes(2));

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.stdout().lines().toList()).as(run.output()).containsExactly("ok create", "ok create-stream",
        "ok stream-helper", "ok models-list", "ok typed-errors", "ok session-default-headers", "ok session-request-headers");
  }
}
