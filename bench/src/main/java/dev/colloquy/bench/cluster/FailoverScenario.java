package dev.colloquy.bench.cluster;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One failover, as an operator would provoke it: clients stream turns through every node of a
 * running {@link LocalCluster}, the node hosting most of their sessions is killed with SIGKILL in the
 * middle (or lost another way: {@link Fault}), and every client resumes through the others. What it measures and checks is in {@link Round}.
 */
public final class FailoverScenario {

  /** {@code sessions} concurrent turns; the kill comes once each client has seen {@code tokensBeforeKill} tokens. */
  public record Options(int sessions, int tokensBeforeKill, Duration turnDeadline, String expectedAnswer) {}

  /** One client's turn as the round saw it. */
  public record TurnReport(String sessionId, boolean hostedOnVictim, boolean viaVictim, Duration resumedAfter,
      int duplicates, int framesLost, String terminal, boolean answerComplete) {}

  /**
   * What one kill did: the victim, when it was killed (wall clock, to be read beside the nodes' logs), each turn's report, when the survivors had removed the victim
   * (the split brain resolver downed it), and each session's journal audit.
   */
  public record Round(int victim, java.time.Instant killedAt, List<TurnReport> turns, Duration victimRemovedAfter,
      List<JournalAudit.Finding> journals) {

    public List<TurnReport> affected() {
      return turns.stream().filter(TurnReport::hostedOnVictim).toList();
    }

    public List<String> problems(Duration servedAgainWithin) {
      List<String> problems = new ArrayList<>();
      if (affected().isEmpty()) {
        problems.add("no session lived on the killed node");
      }
      for (TurnReport turn : turns) {
        if (turn.duplicates() > 0) {
          problems.add(turn.sessionId() + ": " + turn.duplicates() + " frames received twice");
        }
        if (!turn.answerComplete()) {
          problems.add(turn.sessionId() + ": the answer is incomplete (" + turn.terminal() + ")");
        }
        if (turn.hostedOnVictim() && (turn.resumedAfter() == null || turn.resumedAfter().compareTo(servedAgainWithin) > 0)) {
          problems.add(turn.sessionId() + ": served again after " + turn.resumedAfter());
        }
      }
      if (victimRemovedAfter == null) {
        problems.add("the killed node was never removed from the cluster");
      }
      journals.stream().filter(finding -> !finding.clean())
          .forEach(finding -> problems.add(finding.sessionId() + ": " + finding.problems()));
      return problems;
    }
  }

  /** How a node is lost, which one, and which nodes the clients talk to meanwhile. */
  public interface Fault {
    /** The nodes the clients open their sessions and start their turns through. */
    List<Integer> entryNodes(int size);

    /** The node to lose, knowing which node hosts each session. */
    int victim(Map<String, Integer> hosts, int size);

    void inject(LocalCluster cluster, int victim) throws Exception;

    /** Called once the survivors have removed the victim, while the clients are still finishing their turns. */
    default void removed(LocalCluster cluster, int victim) throws Exception {}
  }

  /** SIGKILL of the node hosting most sessions; clients go through every node. */
  public static final Fault KILL = new Kill();

  /**
   * As {@link #KILL}, and the killed node is started again as soon as the survivors have removed it,
   * as its supervisor would: its JVM starts while the clients finish, not after the round.
   */
  public static final Fault KILL_AND_RESTART = new Kill() {
    @Override
    public void removed(LocalCluster cluster, int victim) throws java.io.IOException {
      cluster.node(victim).restart();
    }
  };

  private static class Kill implements Fault {
    @Override
    public List<Integer> entryNodes(int size) {
      return java.util.stream.IntStream.range(0, size).boxed().toList();
    }

    @Override
    public int victim(Map<String, Integer> hosts, int size) {
      return mostHosting(hosts, size);
    }

    @Override
    public void inject(LocalCluster cluster, int victim) throws InterruptedException {
      cluster.node(victim).kill();
    }
  }

  /** How long the cluster must have been settled (all Up, none unreachable) before the clients start. */
  private static final Duration STABLE_BEFORE_STREAMING = Duration.ofSeconds(3);

  private FailoverScenario() {}

  public static Round run(LocalCluster cluster, Options options) throws Exception {
    return run(cluster, options, KILL);
  }

  /** As {@link #run(LocalCluster, Options)}, losing a node by {@code fault}. */
  public static Round run(LocalCluster cluster, Options options, Fault fault) throws Exception {
    cluster.awaitStable(STABLE_BEFORE_STREAMING, LocalCluster.READY_TIMEOUT);
    List<String> urls = cluster.nodes().stream().map(ServeProcess::httpUrl).toList();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2)).build();
    List<ResumingClient> clients = new ArrayList<>();
    List<String> sessions = new ArrayList<>();
    List<Integer> vias = new ArrayList<>();
    List<Integer> entries = fault.entryNodes(urls.size());
    for (int i = 0; i < options.sessions(); i++) {
      ResumingClient client = new ResumingClient(http, urls, cluster.apiKey());
      clients.add(client);
      vias.add(entries.get(i % entries.size()));
      sessions.add(client.openSession(vias.getLast()));
    }
    try (ExecutorService runners = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < clients.size(); i++) {
        int index = i;
        runs.add(runners.submit(() -> {
          clients.get(index).run(sessions.get(index), "Tell me a long story " + index,
              java.util.UUID.randomUUID().toString(), vias.get(index), options.turnDeadline());
          return null;
        }));
      }
      awaitTokens(clients, runs, options.tokensBeforeKill(), options.turnDeadline());
      Map<String, Integer> hosts = new HashMap<>();
      for (String session : sessions) {
        cluster.hostOf(session).ifPresent(host -> hosts.put(session, host.index()));
      }
      int victim = fault.victim(hosts, urls.size());
      long killedAt = System.nanoTime();
      java.time.Instant killedAtWall = java.time.Instant.now();
      fault.inject(cluster, victim);
      Duration removedAfter = awaitRemoval(cluster, victim, killedAt);
      if (removedAfter != null) {
        fault.removed(cluster, victim);
      }
      for (Future<?> run : runs) {
        run.get();
      }
      List<TurnReport> reports = new ArrayList<>();
      int survivor = (victim + 1) % urls.size();
      for (int i = 0; i < clients.size(); i++) {
        ResumingClient client = clients.get(i);
        boolean hosted = Integer.valueOf(victim).equals(hosts.get(sessions.get(i)));
        // Frames the surviving HTTP node had buffered still arrive after the kill: what counts is the
        // first frame of the stream the client resumed.
        Duration resumed = client.firstResumedNanos() == 0 ? null
            : Duration.ofNanos(client.firstResumedNanos() - killedAt);
        int lost = client.framesLostAgainst(ResumingClient.replay(http, urls, survivor, cluster.apiKey(),
            sessions.get(i), client.turnId(), Duration.ofSeconds(30)));
        ResumingClient.Frame terminal = client.terminalFrame();
        String ending = terminal == null ? "no terminal event" : terminal.event()
            + (terminal.event().equals("turn.failed") ? " " + terminal.data().path("code").asText() : "");
        boolean complete = terminal != null && (terminal.event().equals("turn.completed")
            ? client.answer().equals(options.expectedAnswer())
                && terminal.data().path("text").asText().equals(options.expectedAnswer())
            : terminal.event().equals("turn.failed") && terminal.data().path("code").asText().equals("INTERRUPTED"));
        reports.add(new TurnReport(sessions.get(i), hosted, vias.get(i) == victim, resumed, client.duplicates(), lost,
            ending, complete));
      }
      List<JournalAudit.Finding> journals = new ArrayList<>();
      try (var connection = cluster.database()) {
        for (String session : sessions) {
          journals.add(JournalAudit.audit(connection, session));
        }
      }
      return new Round(victim, killedAtWall, reports, removedAfter, journals);
    }
  }

  private static void awaitTokens(List<ResumingClient> clients, List<Future<?>> runs, int tokens, Duration deadline)
      throws Exception {
    long until = System.nanoTime() + deadline.toNanos();
    while (clients.stream().anyMatch(client ->
        client.frames().stream().filter(frame -> frame.event().equals("token")).count() < tokens)) {
      for (Future<?> run : runs) {
        if (run.isDone()) {
          run.get();
        }
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the clients did not reach " + tokens + " tokens within " + deadline);
      }
      Thread.sleep(50);
    }
  }

  private static int mostHosting(Map<String, Integer> hosts, int nodes) {
    int[] counts = new int[nodes];
    hosts.values().forEach(node -> counts[node]++);
    int most = 0;
    for (int node = 1; node < nodes; node++) {
      if (counts[node] > counts[most]) {
        most = node;
      }
    }
    return most;
  }

  /** How long after the kill the survivors stopped listing the victim; null when not within a minute. */
  private static Duration awaitRemoval(LocalCluster cluster, int victim, long killedAt) throws InterruptedException {
    int survivor = (victim + 1) % cluster.nodes().size();
    String address = cluster.node(victim).clusterAddress();
    long until = killedAt + Duration.ofMinutes(1).toNanos();
    while (System.nanoTime() < until) {
      try {
        Optional<String> status = Optional.ofNullable(cluster.members(survivor).get(address));
        if (status.isEmpty()) {
          return Duration.ofNanos(System.nanoTime() - killedAt);
        }
      } catch (Exception notAnswering) {
        // asked again below
      }
      Thread.sleep(100);
    }
    return null;
  }
}
