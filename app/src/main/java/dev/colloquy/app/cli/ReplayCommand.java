package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.http.Json;
import dev.colloquy.http.JournalJson;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.JournalConfig;
import dev.colloquy.persistence.JournalEntry;
import dev.colloquy.persistence.JournalReader;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code colloquy replay}: a session's journal and the state rebuilt from it. */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Prints a session's journal (sequence number, time, event, key fields) and the state rebuilt from it.",
        "Reads the data directory when no server runs on it, or a running server with --server."})
final class ReplayCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "SESSION_ID", description = "The session to replay")
  String sessionId;

  @Option(names = "--until", paramLabel = "SEQ", description = "Stop at this sequence number")
  Long until;

  @Option(names = "--json", description = "Print the journal and state as JSON")
  boolean json;

  @Option(names = "--server", paramLabel = "URL", description = "A running Colloquy, e.g. http://localhost:8080")
  URI server;

  @Option(names = "--api-key", paramLabel = "KEY", defaultValue = "${env:COLLOQUY_API_KEY}",
      description = "The session's tenant's API key, for --server (env COLLOQUY_API_KEY)")
  String apiKey;

  @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
  Path dataDir;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (until != null && until < 1) {
      throw new IllegalArgumentException("--until must be a positive sequence number");
    }
    List<JournalEntry> entries = server != null ? fromServer() : fromDatabase();
    if (entries.isEmpty()) {
      spec.commandLine().getErr().println("colloquy: no journal for session " + sessionId);
      return 2;
    }
    ObjectNode body = JournalJson.body(sessionId, entries);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(body));
    } else {
      JournalPrinter.print(sessionId, entries, body.get("state"), out);
    }
    out.flush();
    return 0;
  }

  private List<JournalEntry> fromDatabase() throws Exception {
    Config overrides = dataDir == null ? ConfigFactory.empty()
        : ConfigFactory.parseMap(Map.of("colloquy.storage.data-dir", dataDir.toString()));
    Config config = Colloquy.loadConfig(overrides);
    ColloquySettings settings = ColloquySettings.create(config);
    try (Database database = Database.openExisting(settings.storage())) {
      Config local = ConfigFactory.parseMap(Map.of("pekko.actor.provider", "local", "pekko.loglevel", "WARNING"));
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "colloquy-replay",
          local.withFallback(JournalConfig.forDatabase(database.connection())).withFallback(config));
      try {
        return new JournalReader(system).read(sessionId, until == null ? Long.MAX_VALUE : until)
            .toCompletableFuture().get();
      } finally {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().join();
      }
    }
  }

  private List<JournalEntry> fromServer() throws Exception {
    String url = server.toString().replaceAll("/+$", "") + "/v1/sessions/" + sessionId + "/journal"
        + (until == null ? "" : "?until=" + until);
    HttpRequest.Builder request =
        ServerRequests.withApiKey(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET(), apiKey);
    try (HttpClient client = HttpClient.newHttpClient()) {
      HttpResponse<String> response = ServerRequests.send(client, request.build());
      if (response.statusCode() == 404) {
        return List.of();
      }
      if (response.statusCode() != 200) {
        throw new IllegalStateException("The server answered " + response.statusCode() + ": " + response.body());
      }
      List<JournalEntry> entries = new ArrayList<>();
      for (JsonNode event : Json.MAPPER.readTree(response.body()).path("events")) {
        entries.add(new JournalEntry(event.path("sequence_nr").asLong(), Instant.parse(event.path("written_at").asText()),
            Json.MAPPER.treeToValue(event.path("event"), ChatSession.Event.class)));
      }
      return entries;
    }
  }
}
