package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests for sessions that were never opened (ids an attacker makes up) are answered as missing
 * and leave nothing in memory: the node's session entities and {@code colloquy_sessions_active} are
 * back where they were as soon as the answers are out, long before the passivation timeout (2 min).
 */
class UnknownSessionIntegrationTest {

  private static final int REQUESTS = 400;
  private static final Duration SETTLE = Duration.ofSeconds(10);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.withDefaults();

  @Test
  void requestsForSessionsNeverOpenedLeaveNoEntityBehind() throws Exception {
    Api api = app.api();
    String kept = api.openSession();
    Set<String> before = LiveSessions.ids(app.colloquy().system());
    double activeBefore = active(api);
    assertThat(before).contains(kept);

    List<Future<Api.Response>> answers = new ArrayList<>();
    try (ExecutorService clients = Executors.newFixedThreadPool(16)) {
      for (int i = 0; i < REQUESTS; i++) {
        String id = UUID.randomUUID().toString();
        int kind = i % 4;
        Callable<Api.Response> request = switch (kind) {
          case 0 -> () -> api.get("/v1/sessions/" + id);
          case 1 -> () -> api.post("/v1/sessions/" + id + "/turns", Api.turn("hello"));
          case 2 -> () -> api.post("/v1/sessions/" + id + "/turns/" + UUID.randomUUID() + "/cancel", "");
          default -> () -> api.send("DELETE", "/v1/sessions/" + id, "");
        };
        answers.add(clients.submit(request));
      }
      for (Future<Api.Response> answer : answers) {
        Api.Response response = answer.get();
        assertThat(response.status()).as(response.body()).isEqualTo(404);
        assertThat(response.json().path("error").path("code").asText()).isIn("SESSION_NOT_FOUND", "TURN_NOT_FOUND");
      }
    }

    awaitSessionsInMemory(before);
    assertThat(active(api)).as("colloquy_sessions_active").isEqualTo(activeBefore);
    assertThat(api.session(kept).path("status").asText()).isEqualTo("open");
  }

  @Test
  void aDeletedSessionLeavesMemoryOnceDeleted() throws Exception {
    Api api = app.api();
    String sessionId = api.openSession();
    assertThat(LiveSessions.contains(app.colloquy().system(), sessionId)).isTrue();

    assertThat(api.send("DELETE", "/v1/sessions/" + sessionId, "").status()).isEqualTo(204);

    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (LiveSessions.contains(app.colloquy().system(), sessionId)) {
      assertThat(System.nanoTime()).as("the deleted session is still in memory").isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
    assertThat(api.get("/v1/sessions/" + sessionId).status()).isEqualTo(404);
  }

  private static void awaitSessionsInMemory(Set<String> expected) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    Set<String> now = LiveSessions.ids(app.colloquy().system());
    while (!now.equals(expected)) {
      assertThat(System.nanoTime())
          .as("session entities in memory: %d, expected %d", now.size(), expected.size())
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      now = LiveSessions.ids(app.colloquy().system());
    }
  }

  private static double active(Api api) throws Exception {
    return new PrometheusText(api.get("/metrics").body()).value("colloquy_sessions_active");
  }
}
