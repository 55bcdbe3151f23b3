package dev.colloquy.bench;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import okhttp3.OkHttpClient;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The token path against its floor, in one run: the mock model in a JVM of its own, the node in
 * another (with its embedded PostgreSQL), and the clients in this one. At each concurrency the same
 * clients first read the mock directly (the floor), then run turns through the node; the report
 * gives what the node adds to the time to first token and between tokens, its throughput as a share
 * of the floor's, and the CPU the node and its database spent per turn. A soak then holds many slow
 * streams open on a node with a capped heap. With {@code --dialect}, the same workload goes through
 * each wire dialect instead, in interleaved pairs against the canonical route ({@link DialectComparison}).
 */
@Command(name = "streaming", mixinStandardHelpOptions = true,
    description = {"Streamed turns through a node against the same clients reading the mock model directly (the floor),"
        + " mock, node and clients each in their own process; prints Markdown with same-run ratios.",
        "With --dialect other than canonical: interleaved pairs of runs, each dialect against the canonical route."})
final class StreamingBench implements Callable<Integer> {

  @Option(names = "--dialect", split = ",", defaultValue = CanonicalBenchDialect.NAME,
      description = "Wire dialects to measure, comma-separated: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})",
      completionCandidates = DialectNames.class)
  List<String> dialects;

  @Option(names = "--pairs", defaultValue = "3",
      description = "With --dialect: runs per dialect, taking turns with the canonical route's (default ${DEFAULT-VALUE})")
  int pairs;

  @Option(names = "--sessions", defaultValue = "100",
      description = "With --dialect: concurrent sessions of each run (default ${DEFAULT-VALUE})")
  int sessions;

  @Option(names = "--turns", defaultValue = "3", description = "With --dialect: turns per session (default ${DEFAULT-VALUE})")
  int turns;

  @Option(names = "--streams", defaultValue = "1,10,100,200,1000", split = ",",
      description = "Concurrent streams of each measured level (default ${DEFAULT-VALUE})")
  int[] levels;

  @Option(names = "--seconds", defaultValue = "10", description = "Length of each pass (default ${DEFAULT-VALUE})")
  int seconds;

  @Option(names = "--warm-up-seconds", defaultValue = "10",
      description = "Node and floor passes at 100 streams before measuring, not reported (default ${DEFAULT-VALUE})")
  int warmUpSeconds;

  @Option(names = "--tokens", defaultValue = "24", description = "Tokens per answer (default ${DEFAULT-VALUE})")
  int tokens;

  @Option(names = "--ttft-ms", defaultValue = "20", description = "Mock time to first token (default ${DEFAULT-VALUE})")
  long ttftMs;

  @Option(names = "--delay-ms", defaultValue = "5", description = "Mock delay between tokens (default ${DEFAULT-VALUE})")
  long delayMs;

  @Option(names = "--ramp-up-ms", defaultValue = "1000",
      description = "Spread the streams' first turns over this long (default ${DEFAULT-VALUE})")
  long rampUpMs;

  @Option(names = "--soak-streams", defaultValue = "0",
      description = "After the levels, hold this many streams of one slow turn each on a fresh node (0 = no soak)")
  int soakStreams;

  @Option(names = "--soak-tokens", defaultValue = "12", description = "Tokens per soak answer (default ${DEFAULT-VALUE})")
  int soakTokens;

  @Option(names = "--soak-ttft-ms", defaultValue = "500", description = "Soak time to first token (default ${DEFAULT-VALUE})")
  long soakTtftMs;

  @Option(names = "--soak-delay-ms", defaultValue = "3000",
      description = "Soak delay between tokens (default ${DEFAULT-VALUE})")
  long soakDelayMs;

  @Option(names = "--soak-ramp-up-ms", defaultValue = "25000",
      description = "Soak streams arrive over this long (default ${DEFAULT-VALUE})")
  long soakRampUpMs;

  @Option(names = "--soak-heap", defaultValue = "1g", description = "The soak node's -Xmx (default ${DEFAULT-VALUE})")
  String soakHeap;

  @Option(names = "--http2",
      description = "The node talks to the mock over HTTP/2 with prior knowledge (the soak always does)")
  boolean http2;

  @Option(names = "--soak-floor-http2",
      description = "The soak's floor clients read the mock over HTTP/2 too, as the node does: which part of the"
          + " soak's cost is the mock's HTTP/2")
  boolean soakFloorHttp2;

  @Option(names = "--engine-java-opts", defaultValue = "",
      description = "Further JVM options of the node, e.g. a flight recording (split on spaces)")
  String engineJavaOpts;

  @Option(names = "--engine-setting", description = "A setting of the node, key=value (repeatable)")
  Map<String, String> engineSettings = Map.of();

  @Option(names = "--jfr-dir", description = "Record each node pass with JFR (settings=profile) into this directory")
  Path jfrDir;

  /** The names {@code --dialect} takes, for its help. */
  static final class DialectNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return BenchDialect.ALL.keySet().iterator();
    }
  }

  @Override
  public Integer call() throws Exception {
    for (String dialect : dialects) {
      if (!BenchDialect.ALL.containsKey(dialect)) {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "Unknown dialect '" + dialect + "'; known: " + BenchDialect.ALL.keySet());
      }
    }
    if (!dialects.equals(List.of(CanonicalBenchDialect.NAME))) {
      new DialectComparison(new StreamingLoad.Shape(sessions, turns, ttftMs, rampUpMs), tokens, delayMs, pairs,
          dialects.stream().filter(name -> !name.equals(CanonicalBenchDialect.NAME)).map(BenchDialect.ALL::get).toList())
          .run();
      return 0;
    }
    System.out.println(Machine.describe(true));
    System.out.printf("Mock: %d tokens, %d ms to the first, %d ms apart; %d s per pass, streams arriving over %d ms.%n%n",
        tokens, ttftMs, delayMs, seconds, rampUpMs);
    List<Level> results = new ArrayList<>();
    Idle idle;
    OkHttpClient streams = TurnLoad.client();
    try (HttpClient client = client();
        MockProcess mock = MockProcess.start(tokens, ttftMs, delayMs, http2, List.of());
        EngineProcess engine = EngineProcess.start(mock.baseUrl(), options(engineJavaOpts), settings(http2), client)) {
      idle = idle(engine);
      if (warmUpSeconds > 0) {
        measure(client, streams, mock, engine, 100, warmUpSeconds);
      }
      for (int level : levels) {
        results.add(measure(client, streams, mock, engine, level, seconds));
      }
    }
    printLevels(results, idle);
    if (soakStreams > 0) {
      soak();
    }
    return 0;
  }

  private record Level(int streams, TurnLoad.Result floor, TurnLoad.Result engine, double engineCpu,
      double compilerCpu, double databaseCpu, PassCpu floorCpu, PassCpu engineSideCpu, String load) {}

  /**
   * What the mock and this process's clients spent over one pass, in CPU seconds: with the node's and
   * its PostgreSQL's, what the pass cost the machine's two cores.
   */
  private record PassCpu(double mock, double clients) {

    static PassCpu since(PassCpu start, MockProcess mock) {
      PassCpu now = now(mock);
      return new PassCpu(now.mock() - start.mock(), now.clients() - start.clients());
    }

    static PassCpu now(MockProcess mock) {
      return new PassCpu(ProcStat.cpuSeconds(mock.pid()), ProcStat.cpuSeconds(ProcessHandle.current().pid()));
    }
  }

  /** What the node spends doing nothing: its CPU per second and its PostgreSQL's, measured before any load. */
  private record Idle(double engineCpuPerSecond, double databaseCpuPerSecond) {}

  private static final int IDLE_SECONDS = 10;

  private Idle idle(EngineProcess engine) throws InterruptedException {
    double engineCpu = engine.engineCpuSeconds() - engine.compilerCpuSeconds();
    double databaseCpu = engine.databaseCpuSeconds();
    Thread.sleep(Duration.ofSeconds(IDLE_SECONDS)); // measures the idle node over a fixed window
    return new Idle((engine.engineCpuSeconds() - engine.compilerCpuSeconds() - engineCpu) / IDLE_SECONDS,
        (engine.databaseCpuSeconds() - databaseCpu) / IDLE_SECONDS);
  }

  private Level measure(HttpClient client, OkHttpClient clients, MockProcess mock, EngineProcess engine, int streams,
      int passSeconds) throws Exception {
    TurnLoad.Shape shape = new TurnLoad.Shape(streams, Duration.ofSeconds(passSeconds),
        Duration.ofMillis(Math.min(rampUpMs, passSeconds * 500L)), Integer.MAX_VALUE);
    List<String> sessions = engine.openSessions(client, streams);
    PassCpu floorStart = PassCpu.now(mock);
    TurnLoad.Result floor = TurnLoad.run(clients, StreamTargets.floor(mock.baseUrl()), shape);
    PassCpu floorCpu = PassCpu.since(floorStart, mock);
    PassCpu engineSideStart = PassCpu.now(mock);
    double engineCpu = engine.engineCpuSeconds();
    double compilerCpu = engine.compilerCpuSeconds();
    double databaseCpu = engine.databaseCpuSeconds();
    if (jfrDir != null) {
      Jcmd.run(engine.pid(), "JFR.start", "name=pass", "settings=profile",
          "filename=" + jfrDir.toAbsolutePath().resolve("node-" + streams + ".jfr"));
    }
    TurnLoad.Result through = TurnLoad.run(clients,
        StreamTargets.engine(engine.baseUrl(), engine.authorization(), sessions), shape);
    if (jfrDir != null) {
      Jcmd.run(engine.pid(), "JFR.stop", "name=pass");
    }
    PassCpu engineSideCpu = PassCpu.since(engineSideStart, mock);
    engineCpu = engine.engineCpuSeconds() - engineCpu;
    compilerCpu = engine.compilerCpuSeconds() - compilerCpu;
    databaseCpu = engine.databaseCpuSeconds() - databaseCpu;
    engine.requireAlive();
    return new Level(streams, floor, through, engineCpu, compilerCpu, databaseCpu, floorCpu, engineSideCpu,
        Machine.load());
  }

  private void printLevels(List<Level> levels, Idle idle) {
    System.out.printf("Idle node: %.1f ms CPU per second, its PostgreSQL %.1f ms per second (JIT excluded).%n%n",
        1000 * idle.engineCpuPerSecond(), 1000 * idle.databaseCpuPerSecond());
    System.out.println("| streams | turns floor / node | failed | refused | turns/s floor | turns/s node | share of floor"
        + " | node CPU/turn | of it JIT | PostgreSQL CPU/turn | node + PostgreSQL, JIT excluded | load (1/5/15 min) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (Level level : levels) {
      long turns = Math.max(1, level.engine().turns());
      System.out.printf("| %d | %d / %d | %d / %d | %d | %.1f | %.1f | %.0f %% | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %s |%n",
          level.streams(), level.floor().turns(), level.engine().turns(), level.floor().failedTurns(),
          level.engine().failedTurns(), level.engine().refused(), level.floor().turnsPerSecond(), level.engine().turnsPerSecond(),
          100 * level.engine().turnsPerSecond() / level.floor().turnsPerSecond(),
          1000 * level.engineCpu() / turns, 1000 * level.compilerCpu() / turns, 1000 * level.databaseCpu() / turns,
          1000 * (level.engineCpu() - level.compilerCpu() + level.databaseCpu()) / turns, level.load());
    }
    System.out.println();
    System.out.println("| streams | TTFT floor p50 / p99 | TTFT node p50 / p99 | added TTFT p50 / p99"
        + " | inter-token floor p50 / p99 | node p50 / p99 | added inter-token p50 / p99 |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (Level level : levels) {
      Histogram floorTtft = level.floor().ttftMicros();
      Histogram ttft = level.engine().ttftMicros();
      Histogram floorGap = level.floor().interTokenMicros();
      Histogram gap = level.engine().interTokenMicros();
      System.out.printf("| %d | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |%n", level.streams(),
          ms(floorTtft, 50), ms(floorTtft, 99), ms(ttft, 50), ms(ttft, 99),
          added(ttft, floorTtft, 50), added(ttft, floorTtft, 99),
          ms(floorGap, 50), ms(floorGap, 99), ms(gap, 50), ms(gap, 99),
          added(gap, floorGap, 50), added(gap, floorGap, 99));
    }
    System.out.println();
    System.out.println("Where the machine's CPU went in each pass, per turn (the JIT's included) and as cores busy"
        + " over the pass:");
    System.out.println();
    // The mock does the same work for every turn, so its CPU per turn in the node pass is a yardstick of
    // how fast the machine ran that pass: on one quiet machine, runs of one build landed ~1.3x apart in
    // node and mock alike (bench/RESULTS.md, 2026-12-01). The node's cost in the mock's turns cancels that.
    System.out.println("| streams | floor: mock / clients CPU/turn | floor: cores busy | node pass: mock / clients"
        + " CPU/turn | node pass: node + PostgreSQL CPU/turn | node pass: cores busy"
        + " | node + PostgreSQL, JIT excluded, in mock turns |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (Level level : levels) {
      long floorTurns = Math.max(1, level.floor().turns());
      long turns = Math.max(1, level.engine().turns());
      double nodeSide = level.engineCpu() + level.databaseCpu();
      double inMockTurns = level.engineSideCpu().mock() > 0
          ? (nodeSide - level.compilerCpu()) / level.engineSideCpu().mock() : Double.NaN;
      System.out.printf("| %d | %.2f / %.2f ms | %.2f | %.2f / %.2f ms | %.2f ms | %.2f | %.2f |%n", level.streams(),
          1000 * level.floorCpu().mock() / floorTurns, 1000 * level.floorCpu().clients() / floorTurns,
          (level.floorCpu().mock() + level.floorCpu().clients()) / level.floor().seconds(),
          1000 * level.engineSideCpu().mock() / turns, 1000 * level.engineSideCpu().clients() / turns,
          1000 * nodeSide / turns,
          (level.engineSideCpu().mock() + level.engineSideCpu().clients() + nodeSide) / level.engine().seconds(),
          inMockTurns);
    }
    for (Level level : levels) {
      if (!level.engine().failures().isEmpty() || !level.floor().failures().isEmpty()) {
        System.out.printf("%nFailures at %d streams: floor %s %s, node %s %s%n", level.streams(),
            level.floor().failureKinds(), level.floor().failures(), level.engine().failureKinds(),
            level.engine().failures());
      }
    }
  }

  /** Many slow streams held open at once on a fresh node whose heap is capped. */
  private void soak() throws Exception {
    System.out.printf("%nSoak: %d streams of one turn each, %d tokens, %d ms to the first, %d ms apart, arriving"
        + " over %d ms; node -Xmx%s.%n%n", soakStreams, soakTokens, soakTtftMs, soakDelayMs, soakRampUpMs, soakHeap);
    Duration turnTime = Duration.ofMillis(soakTtftMs + soakDelayMs * soakTokens);
    TurnLoad.Shape shape = new TurnLoad.Shape(soakStreams, Duration.ofMillis(soakRampUpMs).plus(turnTime.multipliedBy(4)),
        Duration.ofMillis(soakRampUpMs), 1);
    List<String> jvmOptions = new ArrayList<>(options(engineJavaOpts));
    jvmOptions.add("-Xmx" + soakHeap);
    try (HttpClient client = client();
        MockProcess mock = MockProcess.start(soakTokens, soakTtftMs, soakDelayMs, true, List.of());
        EngineProcess engine = EngineProcess.start(mock.baseUrl(), jvmOptions, settings(true), client)) {
      OkHttpClient streams = TurnLoad.client();
      OkHttpClient floorStreams = soakFloorHttp2 ? TurnLoad.http2Client() : streams;
      TurnLoad.Result floor = TurnLoad.run(floorStreams, StreamTargets.floor(mock.baseUrl()), shape);
      floorStreams.connectionPool().evictAll();
      // The floor's connections would stay pooled for minutes: with the node's as many again, this
      // process would pass the machine's 20,000 open files and fail to connect.
      streams.connectionPool().evictAll();
      List<String> sessions = engine.openSessions(client, soakStreams);
      String loadBefore = Machine.load();
      HeapProbe probe = HeapProbe.after(engine.pid(), Duration.ofMillis(soakRampUpMs + soakTtftMs + 2000));
      TurnLoad.Result through = TurnLoad.run(streams,
          StreamTargets.engine(engine.baseUrl(), engine.authorization(), sessions), shape);
      engine.requireAlive();
      System.out.println("| side | streams | peak open | completed | failed | refused (retried) | TTFT p50 | TTFT p99"
          + " | added TTFT p50 / p99 | live heap, all open | RSS, all open | load before / after |");
      System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
      System.out.printf("| floor | %d | %d | %d | %d | %d | %s | %s | – | – | – | – |%n", soakStreams, floor.peakOpen(),
          floor.turns(), floor.failedTurns(), floor.refused(), ms(floor.ttftMicros(), 50), ms(floor.ttftMicros(), 99));
      System.out.printf("| node | %d | %d | %d | %d | %d | %s | %s | %s / %s | %s | %s | %s / %s |%n", soakStreams,
          through.peakOpen(), through.turns(), through.failedTurns(), through.refused(), ms(through.ttftMicros(), 50),
          ms(through.ttftMicros(), 99), added(through.ttftMicros(), floor.ttftMicros(), 50),
          added(through.ttftMicros(), floor.ttftMicros(), 99), probe.liveHeap(), probe.rss(), loadBefore,
          Machine.load());
      if (!floor.failures().isEmpty() || !through.failures().isEmpty()) {
        System.out.println("\nFailures: floor " + floor.failureKinds() + " " + floor.failures() + ", node "
            + through.failureKinds() + " " + through.failures());
      }
    }
  }

  /** The HTTP client that opens sessions; its asynchronous work runs on virtual threads. */
  private static HttpClient client() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
  }

  /** The node's settings: HTTP/2 to the mock when asked, then those given on the command line. */
  private Map<String, String> settings(boolean http2ToMock) {
    Map<String, String> settings = new java.util.LinkedHashMap<>();
    if (http2ToMock) {
      settings.put("colloquy.llm.http2-prior-knowledge", "true");
    }
    settings.putAll(engineSettings);
    return settings;
  }

  private static List<String> options(String joined) {
    return joined.isBlank() ? List.of() : Arrays.asList(joined.trim().split("\\s+"));
  }

  private static String ms(Histogram micros, double percentile) {
    return micros.getTotalCount() == 0 ? "–" : String.format("%.1f ms", micros.getValueAtPercentile(percentile) / 1000.0);
  }

  private static String added(Histogram micros, Histogram floor, double percentile) {
    if (micros.getTotalCount() == 0 || floor.getTotalCount() == 0) {
      return "–";
    }
    return String.format("%+.1f ms",
        (micros.getValueAtPercentile(percentile) - floor.getValueAtPercentile(percentile)) / 1000.0);
  }
}
