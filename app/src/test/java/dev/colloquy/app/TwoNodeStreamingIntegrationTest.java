package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmSettings;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two cluster nodes sharing one PostgreSQL; every request goes to the node that does NOT host the
 * session, in both directions, so each turn's stream crosses nodes as a SourceRef: it streams to
 * the end, replays, resumes with Last-Event-ID, is cancelled upstream, and a client that goes away
 * from the other node is seen by the turn.
 */
class TwoNodeStreamingIntegrationTest {

  /** About 1.2 s of tokens: long enough to act in the middle of a turn. */
  private static final MockLlmSettings MODEL = TestColloquy.fastMock().withTokens(40)
      .withDelays(Duration.ofMillis(30), Duration.ofMillis(30));
  private static final Duration GRACE = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningCluster cluster = RunningCluster.of2(MODEL, Map.of("colloquy.session.disconnect-grace", "2s"));

  @ParameterizedTest(name = "through node {0}, session on node {1}")
  @CsvSource({"0, 1", "1, 0"})
  void aTurnStreamsToItsEndAndReplaysThroughTheOtherNode(int via, int host) throws Exception {
    String sessionId = cluster.sessionHostedBy(host);
    Api api = cluster.api(via);

    List<SseEvent> live;
    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Tell me across the cluster"))) {
      live = stream.readToEnd(WAIT);
    }
    assertThat(StreamedTurnIntegrationTest.ids(live)).containsExactlyElementsOf(StreamedTurnIntegrationTest.oneTo(live.size()));
    assertThat(StreamedTurnIntegrationTest.names(live))
        .containsExactlyElementsOf(StreamedTurnIntegrationTest.expectedNames(MODEL.tokens()));
    assertThat(StreamedTurnIntegrationTest.tokenText(live)).isEqualTo(MODEL.text(MODEL.tokens()));
    assertThat(live.getLast().text("text")).isEqualTo(MODEL.text(MODEL.tokens()));
    assertThat(cluster.hostedSessions(host)).as("the session still lives where it was").contains(sessionId);

    String turnId = live.getFirst().text("turn_id");
    List<SseEvent> replayed;
    try (SseClient stream = api.joinTurn(sessionId, turnId, 5L)) {
      replayed = stream.readToEnd(WAIT);
    }
    assertThat(replayed).isEqualTo(live.subList(5, live.size()));

    HttpResponse<InputStream> seenAll = api.joinTurnResponse(sessionId, turnId, live.getLast().number());
    seenAll.body().close();
    assertThat(seenAll.statusCode()).isEqualTo(204);

    Api.Response json = api.post("/v1/sessions/" + sessionId + "/turns", Api.turn("And once more as JSON"));
    assertThat(json.status()).as(json.body()).isEqualTo(200);
    assertThat(json.json().path("text").asText()).isEqualTo(MODEL.text(MODEL.tokens()));
    assertThat(api.session(sessionId).path("messages")).hasSize(4);
  }

  @ParameterizedTest(name = "through node {0}, session on node {1}")
  @CsvSource({"0, 1", "1, 0"})
  void aClientThatDropsMidTurnResumesWithLastEventIdThroughTheOtherNode(int via, int host) throws Exception {
    String sessionId = cluster.sessionHostedBy(host);
    Api api = cluster.api(via);
    List<SseEvent> seen = new ArrayList<>();
    try (SseClient first = api.streamTurn(sessionId, Api.turn("A long story, please"))) {
      for (int tokens = 0; tokens < 5; ) {
        SseEvent event = first.next(WAIT);
        seen.add(event);
        tokens += event.event().equals("token") ? 1 : 0;
      }
    }
    String turnId = seen.getFirst().text("turn_id");

    List<SseEvent> rest;
    try (SseClient resumed = api.joinTurn(sessionId, turnId, seen.getLast().number())) {
      rest = resumed.readToEnd(WAIT);
    }

    List<SseEvent> all = new ArrayList<>(seen);
    all.addAll(rest);
    assertThat(StreamedTurnIntegrationTest.ids(all)).containsExactlyElementsOf(StreamedTurnIntegrationTest.oneTo(all.size()));
    assertThat(StreamedTurnIntegrationTest.names(all))
        .containsExactlyElementsOf(StreamedTurnIntegrationTest.expectedNames(MODEL.tokens()));
    assertThat(StreamedTurnIntegrationTest.tokenText(all)).isEqualTo(MODEL.text(MODEL.tokens()));
    assertThat(rest.getLast().event()).isEqualTo("turn.completed");
  }

  @ParameterizedTest(name = "through node {0}, session on node {1}")
  @CsvSource({"0, 1", "1, 0"})
  void cancellingThroughTheOtherNodeEndsTheStreamAndTheUpstreamCall(int via, int host) throws Exception {
    String sessionId = cluster.sessionHostedBy(host);
    Api api = cluster.api(via);
    long cancelledBefore = cluster.mock().stats().streamsCancelled();

    try (SseClient stream = api.streamTurn(sessionId, Api.turn("Talk for a while"))) {
      List<SseEvent> started = stream.readUntil(event -> event.event().equals("token"), WAIT);
      String turnId = started.getFirst().text("turn_id");

      Api.Response cancel = api.post("/v1/sessions/" + sessionId + "/turns/" + turnId + "/cancel", "");

      assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
      cluster.mock().stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
      List<SseEvent> rest = stream.readToEnd(WAIT);
      assertThat(rest.getLast().event()).isEqualTo("turn.cancelled");
      assertThat(rest.getLast().text("reason")).isEqualTo("cancelled");
      assertThat(rest).filteredOn(SseEvent::terminal).hasSize(1);
      assertThat(rest.getLast().number()).isEqualTo(started.getLast().number() + rest.size());
      assertThat(rest).filteredOn(event -> event.event().equals("token")).hasSizeLessThan(MODEL.tokens() - 1);
    }
    assertThat(api.session(sessionId).path("running_turn_id").isNull()).isTrue();
  }

  /** The client's disconnect travels back over the SourceRef: the turn starts its grace and then gives up. */
  @ParameterizedTest(name = "through node {0}, session on node {1}")
  @CsvSource({"0, 1", "1, 0"})
  void aClientThatLeavesTheOtherNodeIsSeenByTheTurnWhichCancelsAfterTheGrace(int via, int host) throws Exception {
    cluster.mock().reconfigure(MODEL.withTokens(200));
    try {
      String sessionId = cluster.sessionHostedBy(host);
      Api api = cluster.api(via);
      long cancelledBefore = cluster.mock().stats().streamsCancelled();
      String turnId;
      long leftAt;
      try (SseClient stream = api.streamTurn(sessionId, Api.turn("Talk while I leave"))) {
        turnId = stream.readUntil(event -> event.event().equals("token"), WAIT).getFirst().text("turn_id");
        leftAt = System.nanoTime();
      }

      cluster.mock().stats().whenStreamsCancelled(cancelledBefore + 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertThat(Duration.ofNanos(System.nanoTime() - leftAt)).as("the turn waited for the client to come back")
          .isGreaterThanOrEqualTo(GRACE.minusMillis(100));
      List<SseEvent> outcome;
      try (SseClient joined = api.joinTurn(sessionId, turnId, null)) {
        outcome = joined.readToEnd(WAIT);
      }
      assertThat(outcome.getLast().event()).isEqualTo("turn.cancelled");
      assertThat(outcome.getLast().text("reason")).isEqualTo("disconnected");
    } finally {
      cluster.mock().reconfigure(MODEL);
    }
  }
}
