package dev.colloquy.bench;

import dev.colloquy.app.Colloquy;
import dev.colloquy.app.LiveSessions;
import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.session.ChatSession;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Recovery time of one session from its journal. One node with a short passivation timeout; for
 * each size, a session whose events are written by real turns over HTTP (the offline responder
 * answers; a turn writes 3 events, the first also the title). Then, repeatedly: wait until cluster
 * sharding reports the session out of memory, send it a {@code Get} through sharding and time the
 * reply, which comes once the entity has loaded its latest snapshot and replayed the events after it.
 * Each round recovers every session with the snapshots the entity took while it ran, then with the
 * snapshots set aside, so that it replays the whole journal. The first rounds are a warm-up. Each row
 * also gives the size of the session's latest snapshot, and the last line compares the largest
 * session's recovery with snapshots to the smallest one's.
 */
@Command(name = "recovery", mixinStandardHelpOptions = true,
    description = "Time to bring a passivated session with N events back into memory, with and without snapshots; prints Markdown.")
final class RecoveryBench implements Callable<Integer> {

  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration PASSIVATION_WAIT = Duration.ofSeconds(60);
  private static final int WARM_UP_ROUNDS = 2;

  @Option(names = "--events", split = ",", defaultValue = "100,1000,10000", paramLabel = "N",
      description = "Events per session (rounded up to whole turns) (default ${DEFAULT-VALUE})")
  List<Integer> events;

  @Option(names = "--turns", split = ",", paramLabel = "N",
      description = "Turns per session instead of events, e.g. 100,10000 (a turn journals 3 events)")
  List<Integer> turns;

  @Option(names = "--repetitions", defaultValue = "10", description = "Timed recoveries per session and mode (default ${DEFAULT-VALUE})")
  int repetitions;

  @Option(names = "--snapshot-every", defaultValue = "100", description = "The node's snapshot interval in events (default ${DEFAULT-VALUE})")
  int snapshotEvery;

  record Row(long events, long turns, String mode, long snapshotAt, long snapshotBytes, List<Long> micros,
      String load) {

    static String header() {
      return "| events | turns | snapshots | latest snapshot at | its size | events replayed | recoveries | median | p90 | min | max | load (1/5/15 min) |\n"
          + "|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    double percentile(double p) {
      List<Long> sorted = micros.stream().sorted().toList();
      return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100 * sorted.size()) - 1)) / 1000.0;
    }

    String markdown() {
      return String.format("| %,d | %,d | %s | %s | %s | %,d | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %s |",
          events, turns, mode, snapshotAt == 0 ? "—" : String.format("%,d", snapshotAt),
          snapshotAt == 0 ? "—" : String.format("%,d B", snapshotBytes), events - snapshotAt, micros.size(),
          percentile(50), percentile(90), percentile(0.0001), percentile(100), load);
    }
  }

  @Override
  public Integer call() throws Exception {
    try (BenchNode node = BenchNode.start(Map.of(
        "colloquy.session.passivation-timeout", "1s",
        "colloquy.session.snapshot-every", snapshotEvery,
        "colloquy.session.max-turns", SessionSettings.MAX_TURNS))) {
      System.out.println(Machine.describe(node.colloquy().database().embedded()));
      long started = System.nanoTime();
      List<Integer> sizes = turns == null ? events : turns.stream().map(t -> 3 * t + 2).toList();
      Map<String, Long> sessions = writeSessions(node.colloquy(), sizes);
      System.out.printf("%nWrote %,d events in %d sessions through real turns in %.1f s (load %s); snapshot every %d events.%n%n",
          sessions.values().stream().mapToLong(Long::longValue).sum(), sessions.size(),
          (System.nanoTime() - started) / 1e9, Machine.load(), snapshotEvery);
      System.out.println(Row.header());
      List<Row> rows = measure(node.colloquy(), sessions, repetitions);
      for (Row row : rows) {
        System.out.println(row.markdown());
      }
      List<Row> withSnapshots = rows.stream().filter(row -> row.mode().equals("yes") && row.snapshotBytes() > 0).toList();
      if (withSnapshots.size() < 2) {
        return 0;
      }
      Row smallest = withSnapshots.getFirst();
      Row largest = withSnapshots.getLast();
      System.out.printf("%nWith snapshots, the %,d-turn session recovers in %.2f× the median time of the %,d-turn one;"
          + " its latest snapshot is %.2f× the size.%n", largest.turns(), largest.percentile(50) / smallest.percentile(50),
          smallest.turns(), (double) largest.snapshotBytes() / Math.max(1, smallest.snapshotBytes()));
    }
    return 0;
  }

  /** Session ids and their event counts, one session per size. */
  static Map<String, Long> writeSessions(Colloquy colloquy, List<Integer> sizes) throws Exception {
    Map<String, Long> sessions = new LinkedHashMap<>();
    try (BenchClient client = new BenchClient(colloquy);
        ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<String>> written = new ArrayList<>();
      for (int size : sizes) {
        written.add(writers.submit(() -> {
          String sessionId = client.openSession();
          // Turns until the journal holds at least size events: how many events a turn journals
          // depends on the engine (its intent, checkpoints), not on this bench.
          for (int t = 0; t == 0 || maxSequenceNr(colloquy, "event_journal", sessionId) < size; t++) {
            client.turn(sessionId, "Question number " + t + " about the warranty and the descaling schedule?");
          }
          return sessionId;
        }));
      }
      for (Future<String> sessionId : written) {
        sessions.put(sessionId.get(), 0L);
      }
    }
    for (String sessionId : sessions.keySet()) {
      sessions.put(sessionId, maxSequenceNr(colloquy, "event_journal", sessionId));
    }
    return sessions;
  }

  static List<Row> measure(Colloquy colloquy, Map<String, Long> sessions, int repetitions) throws Exception {
    Map<String, Long> snapshotAt = new LinkedHashMap<>();
    Map<String, Long> snapshotBytes = new LinkedHashMap<>();
    for (String sessionId : sessions.keySet()) {
      snapshotAt.put(sessionId, maxSequenceNr(colloquy, "snapshot", sessionId));
      snapshotBytes.put(sessionId, latestSnapshotBytes(colloquy, sessionId));
    }
    Map<String, List<Long>> withSnapshots = new LinkedHashMap<>();
    Map<String, List<Long>> withoutSnapshots = new LinkedHashMap<>();
    for (int rep = -WARM_UP_ROUNDS; rep < repetitions; rep++) {
      record(rep, withSnapshots, recoveries(colloquy, sessions.keySet(), true));
      setSnapshotsAside(colloquy, sessions.keySet());
      record(rep, withoutSnapshots, recoveries(colloquy, sessions.keySet(), false));
      restoreSnapshots(colloquy);
    }
    String load = Machine.load();
    List<Row> rows = new ArrayList<>();
    for (String sessionId : sessions.keySet()) {
      long events = sessions.get(sessionId);
      long turns = (events - 2) / 3;
      rows.add(new Row(events, turns, "yes", snapshotAt.get(sessionId), snapshotBytes.get(sessionId),
          withSnapshots.get(sessionId), load));
      rows.add(new Row(events, turns, "none", 0, 0, withoutSnapshots.get(sessionId), load));
    }
    return rows;
  }

  private static void record(int rep, Map<String, List<Long>> into, Map<String, Long> micros) {
    if (rep >= 0) {
      micros.forEach((sessionId, took) -> into.computeIfAbsent(sessionId, id -> new ArrayList<>()).add(took));
    }
  }

  /** One recovery of each passivated session, in microseconds; without snapshots, checks first that it has none. */
  private static Map<String, Long> recoveries(Colloquy colloquy, Iterable<String> sessionIds, boolean snapshots)
      throws Exception {
    Map<String, Long> micros = new LinkedHashMap<>();
    for (String sessionId : sessionIds) {
      awaitPassivated(colloquy, sessionId);
      if (!snapshots && maxSequenceNr(colloquy, "snapshot", sessionId) > 0) {
        throw new IllegalStateException("session " + sessionId + " has a snapshot in the mode without");
      }
      micros.put(sessionId, timeRecovery(colloquy, sessionId));
    }
    return micros;
  }

  private static void awaitPassivated(Colloquy colloquy, String sessionId) {
    long deadline = System.nanoTime() + PASSIVATION_WAIT.toNanos();
    while (LiveSessions.contains(colloquy.system(), sessionId)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("session " + sessionId + " did not passivate within " + PASSIVATION_WAIT);
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  private static long timeRecovery(Colloquy colloquy, String sessionId) {
    long started = System.nanoTime();
    ChatSession.SessionAnswer reply = ClusterSharding.get(colloquy.system())
        .entityRefFor(ChatSession.ENTITY_KEY, sessionId)
        .<ChatSession.SessionAnswer>ask(ChatSession.Get::new, ASK_TIMEOUT)
        .toCompletableFuture().join();
    long took = (System.nanoTime() - started) / 1000;
    if (!(reply instanceof ChatSession.SessionReply)) {
      throw new IllegalStateException("session " + sessionId + " answered " + reply);
    }
    return took;
  }

  private static long maxSequenceNr(Colloquy colloquy, String table, String sessionId) throws Exception {
    try (Connection connection = colloquy.database().dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT coalesce(max(sequence_number), 0) FROM " + table + " WHERE persistence_id = ?")) {
      query.setString(1, ChatSession.persistenceId(sessionId).id());
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  private static long latestSnapshotBytes(Colloquy colloquy, String sessionId) throws Exception {
    try (Connection connection = colloquy.database().dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement("SELECT coalesce(octet_length(snapshot_payload), 0) "
            + "FROM snapshot WHERE persistence_id = ? ORDER BY sequence_number DESC LIMIT 1")) {
      query.setString(1, ChatSession.persistenceId(sessionId).id());
      try (ResultSet rows = query.executeQuery()) {
        return rows.next() ? rows.getLong(1) : 0;
      }
    }
  }

  /**
   * Moves the sessions' snapshots to a side table, so that their next recoveries replay whole
   * journals; the modes alternate within each round so that the machine's drift hits both alike. A
   * session that recovered without a snapshot stores one at once (Pekko does), hence the conflicts
   * to ignore: it is the same snapshot again.
   */
  private static void setSnapshotsAside(Colloquy colloquy, Collection<String> sessionIds) throws Exception {
    String ofSessions = " WHERE persistence_id IN (" + String.join(",", Collections.nCopies(sessionIds.size(), "?")) + ")";
    List<String> persistenceIds = sessionIds.stream().map(id -> ChatSession.persistenceId(id).id()).toList();
    try (Connection connection = colloquy.database().dataSource().getConnection()) {
      connection.setAutoCommit(false);
      try (Statement create = connection.createStatement()) {
        create.execute("CREATE TABLE IF NOT EXISTS bench_snapshot_aside (LIKE snapshot INCLUDING ALL)");
      }
      for (String sql : List.of("INSERT INTO bench_snapshot_aside SELECT * FROM snapshot" + ofSessions + " ON CONFLICT DO NOTHING",
          "DELETE FROM snapshot" + ofSessions)) {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
          for (int i = 0; i < persistenceIds.size(); i++) {
            statement.setString(i + 1, persistenceIds.get(i));
          }
          statement.executeUpdate();
        }
      }
      connection.commit();
    }
  }

  private static void restoreSnapshots(Colloquy colloquy) throws Exception {
    try (Connection connection = colloquy.database().dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.execute("INSERT INTO snapshot SELECT * FROM bench_snapshot_aside ON CONFLICT DO NOTHING");
      statement.execute("DROP TABLE bench_snapshot_aside");
      connection.commit();
    }
  }
}
