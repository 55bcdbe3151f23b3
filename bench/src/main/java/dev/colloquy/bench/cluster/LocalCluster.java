package dev.colloquy.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.LimitsSettings;
import dev.colloquy.http.Json;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Several {@code colloquy serve} processes on loopback forming one cluster with Cluster Bootstrap
 * (config discovery of each other's management endpoints), on one PostgreSQL started apart from
 * them, against one mock model server. What an operator runs, on one machine.
 */
public final class LocalCluster implements AutoCloseable {

  public static final Duration READY_TIMEOUT = Duration.ofSeconds(150);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final Path workDir;
  private final EmbeddedPostgres postgres;
  private final MockLlmServer mock;
  private final List<ServeProcess> nodes = new ArrayList<>();
  private String apiKey;

  private LocalCluster(Path workDir, EmbeddedPostgres postgres, MockLlmServer mock) {
    this.workDir = workDir;
    this.postgres = postgres;
    this.mock = mock;
  }

  /**
   * Starts {@code size} nodes at once (bootstrap forms the cluster once two of them see each other)
   * and returns when every one is ready; {@code env} is added to each node's environment.
   */
  public static LocalCluster start(int size, MockLlmSettings model, Map<String, String> env) throws Exception {
    return start(size, model, env, NodeNetwork.LOOPBACK);
  }

  /** As {@link #start(int, MockLlmSettings, Map)}, with the nodes placed on {@code network}. */
  public static LocalCluster start(int size, MockLlmSettings model, Map<String, String> env, NodeNetwork network)
      throws Exception {
    Path workDir = Files.createTempDirectory("colloquy-cluster");
    EmbeddedPostgres.Builder database = EmbeddedPostgres.builder().setDataDirectory(workDir.resolve("postgres"));
    if (network.nodesSubnet().isPresent()) {
      String subnet = network.nodesSubnet().get();
      database.setServerConfig("listen_addresses", "127.0.0.1," + network.servicesHost())
          .setDataDirectoryCustomizer(directory -> letIn(directory.toPath(), subnet));
    }
    EmbeddedPostgres postgres = database.start();
    MockLlmServer mock = MockLlmServer.start(model, network.servicesHost(), 0);
    LocalCluster cluster = new LocalCluster(workDir, postgres, mock);
    try {
      List<Map<String, String>> settings = cluster.settings(size, env, network);
      for (int i = 0; i < size; i++) {
        cluster.nodes.add(ServeProcess.start(i, settings.get(i), network.launcher(i),
            workDir.resolve("node-" + i + ".log")));
      }
      for (ServeProcess node : cluster.nodes) {
        node.awaitReady(READY_TIMEOUT);
      }
      cluster.apiKey = cluster.findDevKey();
      return cluster;
    } catch (Exception | Error e) {
      System.err.println(cluster.logs());
      cluster.close();
      throw e;
    }
  }

  /** The database's client authentication lets the nodes' subnet in, as it does loopback. */
  private static void letIn(Path dataDirectory, String subnet) {
    try {
      Files.writeString(dataDirectory.resolve("pg_hba.conf"), "host all all " + subnet + " trust\n",
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<Map<String, String>> settings(int size, Map<String, String> env, NodeNetwork network)
      throws IOException {
    List<NodeNetwork.NodePorts> ports = new ArrayList<>();
    List<String> contactPoints = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ports.add(network.ports(i));
      contactPoints.add(network.nodeHost(i) + ":" + ports.get(i).management());
    }
    List<Map<String, String>> all = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      Map<String, String> node = new HashMap<>();
      node.put("COLLOQUY_HTTP_HOST", network.nodeHost(i));
      node.put("COLLOQUY_HTTP_PORT", Integer.toString(ports.get(i).http()));
      node.put("COLLOQUY_CLUSTER_HOST", network.nodeHost(i));
      node.put("COLLOQUY_CLUSTER_PORT", Integer.toString(ports.get(i).cluster()));
      node.put("COLLOQUY_MANAGEMENT_PORT", Integer.toString(ports.get(i).management()));
      node.put("COLLOQUY_CLUSTER_DISCOVERY", "config");
      node.put("COLLOQUY_CLUSTER_CONTACT_POINTS", String.join(",", contactPoints));
      node.put("COLLOQUY_CLUSTER_REQUIRED_CONTACT_POINTS", "2");
      node.put("COLLOQUY_DATA_DIR", workDir.resolve("data-" + i).toString());
      node.put("COLLOQUY_DB_URL", "jdbc:postgresql://" + network.servicesHost() + ":" + postgres.getPort() + "/postgres");
      node.put("COLLOQUY_DB_USER", "postgres");
      node.put("COLLOQUY_DB_PASSWORD", "postgres");
      node.put("COLLOQUY_LLM_BASE_URL", mock.baseUrl());
      node.put("COLLOQUY_LLM_MODEL", "mock");
      // The mock's embeddings spare every node the seconds of loading the in-process model.
      node.put("COLLOQUY_EMBEDDING_BASE_URL", mock.baseUrl());
      node.put("COLLOQUY_EMBEDDING_MODEL", "mock-embedding");
      // Many clients share one key here: the tenant's limits are not what is measured.
      node.put("COLLOQUY_RATE_LIMIT_TURNS_PER_MINUTE", Integer.toString(LimitsSettings.MAX_RATE_PER_MINUTE));
      node.put("COLLOQUY_RATE_LIMIT_REQUESTS_PER_MINUTE", Integer.toString(LimitsSettings.MAX_RATE_PER_MINUTE));
      node.put("COLLOQUY_MAX_CONCURRENT_STREAMS", Integer.toString(LimitsSettings.MAX_CONCURRENT_STREAMS));
      node.put("COLLOQUY_LOG_LEVEL", "INFO");
      node.putAll(env);
      all.add(node);
    }
    return all;
  }

  /** One node of the cluster wrote the development tenant's key to its data directory. */
  private String findDevKey() throws IOException {
    for (int i = 0; i < nodes.size(); i++) {
      Path file = workDir.resolve("data-" + i).resolve("dev-api-key");
      if (Files.exists(file)) {
        return Files.readString(file).strip();
      }
    }
    throw new IllegalStateException("no node wrote a development key under " + workDir);
  }

  public List<ServeProcess> nodes() {
    return nodes;
  }

  public ServeProcess node(int index) {
    return nodes.get(index);
  }

  public String apiKey() {
    return apiKey;
  }

  public MockLlmServer mock() {
    return mock;
  }

  public Connection database() throws SQLException {
    return postgres.getPostgresDatabase().getConnection();
  }

  /** The cluster addresses and statuses of the members, as node {@code viewer}'s management endpoint reports them. */
  public Map<String, String> members(int viewer) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
            URI.create(nodes.get(viewer).managementUrl() + "/cluster/members")).timeout(Duration.ofSeconds(3)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode members = Json.MAPPER.readTree(response.body()).path("members");
    Map<String, String> statuses = new HashMap<>();
    members.forEach(member -> statuses.put(member.path("node").asText(), member.path("status").asText()));
    return statuses;
  }

  /**
   * Waits until every running node reports all the running nodes as Up members and none unreachable,
   * without a break for {@code quiet}: a cluster that has just formed (or taken a node back) while its
   * JVMs compete for the CPU may still be marking members unreachable, and a scenario started then
   * measures that rather than the fault it injects.
   */
  public void awaitStable(Duration quiet, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long stableSince = 0;
    String view = "";
    while (true) {
      List<ServeProcess> running = nodes.stream().filter(ServeProcess::alive).toList();
      Set<String> expected = running.stream().map(ServeProcess::clusterAddress).collect(java.util.stream.Collectors.toSet());
      boolean stable = true;
      StringBuilder seen = new StringBuilder();
      for (ServeProcess node : running) {
        try {
          JsonNode state = membersState(node);
          Map<String, String> statuses = new HashMap<>();
          state.path("members").forEach(member -> statuses.put(member.path("node").asText(), member.path("status").asText()));
          boolean settled = statuses.keySet().equals(expected) && statuses.values().stream().allMatch("Up"::equals)
              && state.path("unreachable").isEmpty();
          stable &= settled;
          seen.append("node ").append(node.index()).append(": ").append(statuses)
              .append(" unreachable ").append(state.path("unreachable")).append("; ");
        } catch (IOException notAnswering) {
          stable = false;
          seen.append("node ").append(node.index()).append(": ").append(notAnswering).append("; ");
        }
      }
      view = seen.toString();
      long now = System.nanoTime();
      if (!stable) {
        stableSince = 0;
      } else if (stableSince == 0) {
        stableSince = now;
      } else if (now - stableSince >= quiet.toNanos()) {
        return;
      }
      if (now > deadline) {
        throw new IllegalStateException("the cluster was not stable for " + quiet + " within " + timeout + ": " + view);
      }
      Thread.sleep(250);
    }
  }

  private JsonNode membersState(ServeProcess node) throws IOException, InterruptedException {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(node.managementUrl() + "/cluster/members"))
        .timeout(Duration.ofSeconds(3)).GET().build(), HttpResponse.BodyHandlers.ofString());
    return Json.MAPPER.readTree(response.body());
  }

  /** The node whose log says it ran a turn of {@code sessionId}: the node the session lived on then. */
  public Optional<ServeProcess> hostOf(String sessionId) throws IOException {
    for (ServeProcess node : nodes) {
      try (Stream<String> lines = Files.lines(node.log())) {
        if (lines.anyMatch(line -> line.contains("\"session_id\":\"" + sessionId + "\"")
            && line.contains("Turn started"))) {
          return Optional.of(node);
        }
      }
    }
    return Optional.empty();
  }

  /** The sessions whose turns {@code node} has run, from its log. */
  public Set<String> sessionsRunOn(ServeProcess node) throws IOException {
    Set<String> sessions = new HashSet<>();
    try (Stream<String> lines = Files.lines(node.log())) {
      lines.filter(line -> line.contains("Turn started")).forEach(line -> {
        try {
          sessions.add(Json.MAPPER.readTree(line).path("session_id").asText());
        } catch (IOException notJson) {
          // a line the JVM printed itself
        }
      });
    }
    return sessions;
  }

  /** Changes the development tenant's configuration ({@code PUT /v1/config}) through node 0. */
  public void configureTenant(String json) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(nodes.getFirst().httpUrl() + "/v1/config"))
        .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("PUT /v1/config: HTTP " + response.statusCode() + " " + response.body());
    }
  }

  public Path workDir() {
    return workDir;
  }

  @Override
  public void close() throws Exception {
    for (ServeProcess node : nodes) {
      node.stop();
    }
    mock.close();
    postgres.close();
    try (Stream<Path> files = Files.walk(workDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  /** Copies every node's log into {@code directory} (created when missing), as node-N.log. */
  public void copyLogs(Path directory) throws IOException {
    Files.createDirectories(directory);
    for (ServeProcess node : nodes) {
      if (Files.exists(node.log())) {
        Files.copy(node.log(), directory.resolve(node.log().getFileName()),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  /** Every node's log, for a run that failed. */
  public String logs() throws IOException {
    StringBuilder all = new StringBuilder();
    for (ServeProcess node : nodes) {
      all.append("===== node ").append(node.index()).append(" (").append(node.log()).append(") =====\n");
      if (Files.exists(node.log())) {
        all.append(Files.readString(node.log()));
      }
    }
    return all.toString();
  }

  static List<String> lines(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
  }
}
