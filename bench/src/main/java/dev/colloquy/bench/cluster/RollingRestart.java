package dev.colloquy.bench.cluster;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A rolling restart under load: clients run turns one after another in their sessions through every
 * node while each node in turn gets SIGTERM, drains, exits and is started again. A client retries a
 * start refused with 503 through the next node, with the same idempotency key (the same turn), and
 * resumes a broken stream with Last-Event-ID.
 */
public final class RollingRestart {

  /** What the restart did to the clients' turns and how each node stopped. */
  public record Result(int turnsAcknowledged, int turnsCompleted, List<String> turnsNotCompleted,
      int retriedStarts, int resumes, int duplicates, List<String> clientErrors, List<Integer> exitCodes,
      List<Duration> stopTimes) {}

  private RollingRestart() {}

  public static Result run(LocalCluster cluster, int clients, String expectedAnswer) throws Exception {
    List<String> urls = cluster.nodes().stream().map(ServeProcess::httpUrl).toList();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2)).build();
    AtomicBoolean running = new AtomicBoolean(true);
    List<ResumingClient> turns = java.util.Collections.synchronizedList(new ArrayList<>());
    List<String> notCompleted = java.util.Collections.synchronizedList(new ArrayList<>());
    List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Integer> exitCodes = new ArrayList<>();
    List<Duration> stopTimes = new ArrayList<>();
    try (ExecutorService load = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> workers = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        int via = c % urls.size();
        workers.add(load.submit(() -> {
          String sessionId = new ResumingClient(http, urls, cluster.apiKey()).openSession(via);
          int turn = 0;
          while (running.get()) {
            ResumingClient client = new ResumingClient(http, urls, cluster.apiKey());
            turns.add(client);
            try {
              client.run(sessionId, "Rolling question " + turn, UUID.randomUUID().toString(), (via + turn) % urls.size(),
                  Duration.ofMinutes(3));
              ResumingClient.Frame terminal = client.terminalFrame();
              if (terminal == null || !terminal.event().equals("turn.completed")
                  || !client.answer().equals(expectedAnswer)) {
                notCompleted.add(sessionId + "/" + client.turnId() + ": "
                    + (terminal == null ? "no terminal event" : terminal.event() + " " + terminal.data()));
              }
            } catch (Exception e) {
              errors.add(sessionId + ": " + e.getMessage());
            }
            turn++;
          }
          return null;
        }));
      }
      Thread.sleep(3000);
      for (ServeProcess node : cluster.nodes()) {
        long stopping = System.nanoTime();
        exitCodes.add(node.terminate(Duration.ofMinutes(2)));
        stopTimes.add(Duration.ofNanos(System.nanoTime() - stopping));
        node.restart();
        node.awaitReady(LocalCluster.READY_TIMEOUT);
      }
      Thread.sleep(3000);
      running.set(false);
      for (Future<?> worker : workers) {
        worker.get();
      }
    }
    int acknowledged = (int) turns.stream().filter(client -> client.turnId() != null).count();
    int completed = (int) turns.stream().filter(client -> client.terminalFrame() != null
        && client.terminalFrame().event().equals("turn.completed")).count();
    return new Result(acknowledged, completed, List.copyOf(notCompleted),
        turns.stream().mapToInt(ResumingClient::retriedStarts).sum(),
        turns.stream().mapToInt(ResumingClient::resumes).sum(),
        turns.stream().mapToInt(ResumingClient::duplicates).sum(), List.copyOf(errors), exitCodes, stopTimes);
  }
}
