package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} while an escalation webhook is being retried: the node (a child JVM on embedded
 * PostgreSQL) dies after the receiver refused the webhook twice and is started again on the same
 * data. The webhook is then delivered once, with the id it had before the crash, and nothing of it
 * is sent again.
 */
class EscalationWebhookCrashIntegrationTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension
  final ChildColloquies children = new ChildColloquies();

  @TempDir
  Path dataDir;

  private static MockLlmServer mock;
  private static WebhookReceiver receiver;

  @BeforeAll
  static void start() throws Exception {
    mock = TestColloquy.startMock();
    receiver = new WebhookReceiver();
  }

  @AfterAll
  static void stop() {
    receiver.close();
    mock.close();
  }

  @Test
  void aWebhookRetriedAcrossAKillIsDeliveredOnceWithItsOriginalId() throws Exception {
    Map<String, String> env = Map.of("COLLOQUY_EGRESS_ALLOW", "127.0.0.1");
    ChildColloquy first = children.start(dataDir, mock, env);
    Api api = first.api();
    Api.Response configured = api.send("PUT", "/v1/config", "{\"escalation_webhook_url\": \"" + receiver.url() + "\"}");
    assertThat(configured.status()).as(configured.body()).isEqualTo(200);
    String sessionId = api.openSession();
    receiver.failNext(sessionId, 1_000);

    Api.Response escalated = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("I need to talk to a human"));
    assertThat(escalated.json().path("escalation").asText()).isEqualTo("user_requested");
    List<WebhookReceiver.Attempt> refused =
        receiver.await(attempt -> attempt.body().contains(sessionId), 2, WAIT);
    first.kill();
    receiver.failNext(sessionId, 0);

    ChildColloquy second = children.start(dataDir, mock, env);
    List<WebhookReceiver.Attempt> delivered =
        receiver.await(attempt -> attempt.body().contains(sessionId) && attempt.accepted(), 1, WAIT);
    Api.Response forwarded = second.api().post("/v1/sessions/" + sessionId + "/turns", Api.turn("Still waiting"));
    assertThat(forwarded.status()).as(forwarded.body()).isEqualTo(200);
    receiver.await(attempt -> attempt.accepted() && attempt.body().contains("Still waiting"), 1, WAIT);

    List<WebhookReceiver.Attempt> escalations = receiver.attempts().stream()
        .filter(attempt -> attempt.body().contains(sessionId) && attempt.body().contains("\"event\":\"escalation\""))
        .toList();
    assertThat(escalations).extracting(WebhookReceiver.Attempt::id).containsOnly(refused.getFirst().id());
    assertThat(escalations).filteredOn(WebhookReceiver.Attempt::accepted).hasSize(1)
        .first().isEqualTo(delivered.getFirst());
    assertThat(escalations.getLast()).as("nothing of it after its delivery").isEqualTo(delivered.getFirst());
  }
}
