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

/**
 * {@code colloquy replay}: a session's journal and the state rebuilt from it; with
 * {@code --fork-at-turn}, a fork of it that runs a turn again; with {@code --diff}, where two sessions part.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
    description = {"Prints a session's journal (sequence number, time, event, key fields) and the state rebuilt from it.",
        "Reads the data directory when no server runs on it, or a running server with --server.",
        "--fork-at-turn N forks the session on a running server and runs turn N again in the fork.",
        "--diff A B shows the first turn at which two sessions differ."})
final class ReplayCommand implements Callable<Integer> {

  @Parameters(index = "0", arity = "0..1", paramLabel = "SESSION_ID", description = "The session to replay")
  String sessionId;

  @Option(names = "--fork-at-turn", paramLabel = "N",
      description = "Fork the session before turn N (1 keeps no turn) and run turn N again in the fork (needs --server)")
  Integer forkAtTurn;

  @Option(names = "--model", paramLabel = "MODEL", description = "With --fork-at-turn: the model the turn runs on")
  String model;

  @Option(names = "--message", paramLabel = "TEXT", description = "With --fork-at-turn: the message to send instead")
  String message;

  @Option(names = "--diff", arity = "2", paramLabel = "SESSION_ID",
      description = "Compare two sessions turn by turn (e.g. an original and its fork)")
  List<String> diff;

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
    PrintWriter out = spec.commandLine().getOut();
    if (diff != null) {
      return diff(out);
    }
    if (sessionId == null) {
      throw new IllegalArgumentException("name the session to replay, or two sessions with --diff A B");
    }
    if (forkAtTurn != null) {
      return fork(out);
    }
    if (model != null || message != null) {
      throw new IllegalArgumentException("--model and --message go with --fork-at-turn");
    }
    List<JournalEntry> entries = read(List.of(sessionId)).getFirst();
    if (entries.isEmpty()) {
      return noJournal(sessionId);
    }
    ObjectNode body = JournalJson.body(sessionId, entries);
    if (json) {
      out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(body));
    } else {
      JournalPrinter.print(sessionId, entries, body.get("state"), out);
    }
    out.flush();
    return 0;
  }

  private int fork(PrintWriter out) throws Exception {
    if (server == null) {
      throw new IllegalArgumentException("--fork-at-turn runs a turn, which needs a running server: add --server URL");
    }
    if (forkAtTurn < 1) {
      throw new IllegalArgumentException("--fork-at-turn must be 1 or more: the turn the fork runs again");
    }
    new ForkRun(server, apiKey).run(sessionId, forkAtTurn, model, message, out);
    out.flush();
    return 0;
  }

  private int diff(PrintWriter out) throws Exception {
    if (sessionId != null || forkAtTurn != null) {
      throw new IllegalArgumentException("--diff takes its two sessions and no other session or --fork-at-turn");
    }
    List<List<JournalEntry>> journals = read(diff);
    for (int i = 0; i < 2; i++) {
      if (journals.get(i).isEmpty()) {
        return noJournal(diff.get(i));
      }
    }
    JournalDiff.print(diff.get(0), journals.get(0), diff.get(1), journals.get(1), out);
    out.flush();
    return 0;
  }

  private int noJournal(String id) {
    spec.commandLine().getErr().println("colloquy: no journal for session " + id);
    return 2;
  }

  /** The journals of {@code ids}, in order (empty for a session without one), up to --until. */
  private List<List<JournalEntry>> read(List<String> ids) throws Exception {
    List<List<JournalEntry>> journals = new ArrayList<>();
    if (server != null) {
      for (String id : ids) {
        journals.add(fromServer(id));
      }
      return journals;
    }
    return fromDatabase(ids);
  }

  private List<List<JournalEntry>> fromDatabase(List<String> ids) throws Exception {
    Config overrides = dataDir == null ? ConfigFactory.empty()
        : ConfigFactory.parseMap(Map.of("colloquy.storage.data-dir", dataDir.toString()));
    Config config = Colloquy.loadConfig(overrides);
    ColloquySettings settings = ColloquySettings.create(config);
    try (Database database = Database.openExisting(settings.storage())) {
      Config local = ConfigFactory.parseMap(Map.of("pekko.actor.provider", "local", "pekko.loglevel", "WARNING"));
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "colloquy-replay",
          local.withFallback(JournalConfig.forDatabase(database.connection())).withFallback(config));
      try {
        JournalReader reader = new JournalReader(system);
        List<List<JournalEntry>> journals = new ArrayList<>();
        for (String id : ids) {
          journals.add(reader.read(id, until == null ? Long.MAX_VALUE : until).toCompletableFuture().get());
        }
        return journals;
      } finally {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().join();
      }
    }
  }

  private List<JournalEntry> fromServer(String id) throws Exception {
    String url = server.toString().replaceAll("/+$", "") + "/v1/sessions/" + id + "/journal"
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
