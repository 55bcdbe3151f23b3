package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.http.SessionRoutes;
import dev.colloquy.persistence.tenant.KeyKind;
import dev.colloquy.persistence.tenant.TenantStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The web app in the machine's Chromium (playwright-core, {@code web/e2e}) against the real server and
 * the mock model: sign in, a streamed answer token by token, stop, resume after a network drop, fan-out
 * columns, an upload with progress and the citations it brings (opened to their passage's text),
 * rename, search on the server, delete and replay, a phone and the dark theme; the widget on a page of
 * another origin, with a public key, over the support agent's API: its conversation after a reload,
 * refused on an origin the tenant does not allow, and handed to a human by the tenant's escalation
 * rule (its webhook received here); then model output that tries to run script. Screenshots go to
 * {@code app/target/web-screenshots} (the README's come from there).
 */
class WebAppBrowserIntegrationTest {

  static final int TOKENS = 60;
  static final String ADMIN = "admin-token-of-the-browser-test";

  /**
   * Turns of 60 tokens 100 ms apart (about 6 s), slow enough to stop or cut one mid-answer even when
   * the machine is so loaded that the browser takes seconds to act.
   */
  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(
      TestColloquy.fastMock().withTokens(TOKENS).withDelays(Duration.ofMillis(50), Duration.ofMillis(100))
          .withTokenText("word{i} "),
      Map.of("colloquy.llm.extra-models", List.of(TestColloquy.BROKEN_MODEL, "mock-b"), "colloquy.admin.token", ADMIN,
          // The widget's escalation reaches the tenant's webhook receiver, which the test runs here.
          "colloquy.agent.egress-allow", "127.0.0.1"));

  /** What a model might say to a page that renders it carelessly. */
  static final String HOSTILE = "Here is **bold**. <img src=x onerror=\"window.__xss='img'\"> "
      + "<script>window.__xss='script'</script> [click](javascript:window.__xss='link') ";

  @Test
  void theWebAppAndTheWidgetWorkInChromiumAndModelOutputCannotRunScript() throws Exception {
    NodeProject e2e = NodeProject.installed("web/e2e");
    TestColloquy.api(app.colloquy());
    TenantStore tenants = new TenantStore(app.colloquy().database().dataSource());
    String key = tenants.issueKey(SessionRoutes.DEFAULT_TENANT).orElseThrow().apiKey();
    String publicKey = tenants.issueKey(SessionRoutes.DEFAULT_TENANT, KeyKind.PUBLIC).orElseThrow().apiKey();
    Path screenshots = Files.createDirectories(Path.of("target", "web-screenshots"));
    Map<String, String> env = Map.of("COLLOQUY_BASE_URL", app.colloquy().baseUrl(), "COLLOQUY_API_KEY", key,
        "COLLOQUY_PUBLIC_KEY", publicKey, "MOCK_TOKENS", String.valueOf(TOKENS), "ADMIN_TOKEN", ADMIN,
        "SCREENSHOT_DIR", screenshots.toAbsolutePath().toString());

    NodeProject.Run scenarios = e2e.exec(List.of("node", "--test", "--test-concurrency=1", "app.test.mjs"), env,
        Duration.ofMinutes(5));
    assertThat(scenarios.exitCode()).as(scenarios.output()).isZero();
    assertThat(scenarios.stdout()).contains("# pass 8", "# fail 0");

    NodeProject.Run widget = e2e.exec(List.of("node", "--test", "widget.test.mjs"), env, Duration.ofMinutes(3));
    assertThat(widget.exitCode()).as(widget.output()).isZero();
    assertThat(widget.stdout()).contains("# pass 4", "# fail 0");

    app.mock().reconfigure(app.mock().settings().withTokens(1).withTokenText(HOSTILE));
    NodeProject.Run hostile = e2e.exec(List.of("node", "--test", "xss.test.mjs"), env, Duration.ofMinutes(2));
    assertThat(hostile.exitCode()).as(hostile.output()).isZero();
    assertThat(hostile.stdout()).contains("# pass 1", "# fail 0");
  }
}
