package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.app.Knowledge;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.http.Json;
import dev.colloquy.http.SessionRoutes;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.documents.KnowledgeDocument;
import dev.colloquy.ingestion.parse.DocumentType;
import dev.colloquy.persistence.Database;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code colloquy ingest}: adds documents to the knowledge base, with a progress bar and a summary. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
    description = {"Ingests files (PDF, DOCX, HTML, Markdown, TXT, CSV), or every file under the folders given, "
        + "into the knowledge base of the data directory (no server may run on it), or of a running server with --server.",
        "bench/eval holds ready-made sample documents to try it on."})
final class IngestCommand implements Callable<Integer> {

  private static final Duration WAIT_PER_FILE = Duration.ofMinutes(10);

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Files or folders")
  List<Path> paths;

  @Option(names = "--server", paramLabel = "URL", description = "A running Colloquy, e.g. http://localhost:8080")
  URI server;

  @Option(names = "--api-key", paramLabel = "KEY", defaultValue = "${env:COLLOQUY_API_KEY}",
      description = "The tenant's API key, for --server (env COLLOQUY_API_KEY)")
  String apiKey;

  @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
  Path dataDir;

  @Spec
  CommandSpec spec;

  /** What became of one file. */
  record Result(Path file, String status, int chunks, String error) {}

  @Override
  public Integer call() throws Exception {
    Found found = files(paths);
    List<Path> files = found.files();
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no PDF, DOCX, HTML, Markdown, TXT or CSV files found under " + paths);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (!found.skipped().isEmpty()) {
      out.printf("Skipping %d file%s of other types: %s%n", found.skipped().size(), found.skipped().size() == 1 ? "" : "s",
          String.join(", ", found.skipped().stream().map(Path::toString).toList()));
    }
    Progress progress = new Progress(out, files.size());
    List<Result> results = server != null ? viaServer(files, progress) : local(files, progress);
    long failed = results.stream().filter(r -> !r.status().equals("ready")).count();
    out.printf("%nIngested %d of %d files, %d chunks%s%n", files.size() - failed, files.size(),
        results.stream().mapToInt(Result::chunks).sum(), failed == 0 ? "" : "; failed:");
    results.stream().filter(r -> !r.status().equals("ready"))
        .forEach(r -> out.printf("  %s: %s%n", r.file(), r.error()));
    out.flush();
    return failed == 0 ? 0 : 1;
  }

  /** The files to ingest, and those found in a folder that are of no type the knowledge base reads. */
  record Found(List<Path> files, List<Path> skipped) {}

  /**
   * A file named on the command line is always tried, so that its refusal is reported; in a folder only
   * the files of a supported type are, as a folder of documents often holds images or data files too.
   */
  static Found files(List<Path> paths) throws IOException {
    List<Path> files = new ArrayList<>();
    List<Path> skipped = new ArrayList<>();
    for (Path path : paths) {
      if (!Files.exists(path)) {
        throw new IllegalArgumentException("no such file or folder: " + path);
      }
      if (Files.isRegularFile(path)) {
        files.add(path);
        continue;
      }
      try (Stream<Path> walk = Files.walk(path)) {
        walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith(".")).sorted()
            .forEach(file -> (DocumentType.fromFileName(file.getFileName().toString()).isPresent() ? files : skipped)
                .add(file));
      }
    }
    return new Found(files, skipped);
  }

  private List<Result> local(List<Path> files, Progress progress) throws Exception {
    Config overrides = dataDir == null ? ConfigFactory.empty()
        : ConfigFactory.parseMap(Map.of("colloquy.storage.data-dir", dataDir.toString()));
    ColloquySettings settings = ColloquySettings.create(Colloquy.loadConfig(overrides));
    List<Result> results = new ArrayList<>();
    try (ExecutorService blocking = Executors.newVirtualThreadPerTaskExecutor();
        Database database = Database.open(settings.storage());
        Knowledge knowledge = Knowledge.open(settings.knowledge(), settings.storage().dataDir(), database.dataSource(),
            Knowledge.modelEnricher(settings.llm(), Colloquy.models(settings.llm(), blocking)))) {
      for (Path file : files) {
        results.add(progress.done(ingestLocally(knowledge, file)));
      }
    }
    return results;
  }

  private static Result ingestLocally(Knowledge knowledge, Path file) throws Exception {
    try {
      // The service owns and deletes the file it is given: it gets a copy, in its upload directory.
      Path copy = Files.copy(file, knowledge.documents().newUploadFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      KnowledgeDocument document = knowledge.documents()
          .ingest(SessionRoutes.DEFAULT_TENANT, file.getFileName().toString(), copy)
          .completion().toCompletableFuture().get(WAIT_PER_FILE.toSeconds(), TimeUnit.SECONDS);
      return new Result(file, document.status().wireName(), document.chunkCount(),
          document.error().map(e -> e.code() + ": " + e.message()).orElse(null));
    } catch (IngestionException e) {
      return new Result(file, "refused", 0, e.code().wireName() + ": " + e.getMessage());
    }
  }

  private List<Result> viaServer(List<Path> files, Progress progress) throws Exception {
    String base = server.toString().replaceAll("/+$", "");
    List<Result> results = new ArrayList<>();
    try (HttpClient client = HttpClient.newHttpClient()) {
      for (Path file : files) {
        results.add(progress.done(upload(client, base, apiKey, file)));
      }
    }
    return results;
  }

  private static Result upload(HttpClient client, String base, String apiKey, Path file) throws Exception {
    String boundary = "colloquy-" + UUID.randomUUID();
    byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
        + file.getFileName().toString().replace("\"", "") + "\"\r\nContent-Type: application/octet-stream\r\n\r\n")
        .getBytes(StandardCharsets.UTF_8);
    byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    HttpRequest request = ServerRequests.withApiKey(HttpRequest.newBuilder(URI.create(base + "/v1/knowledge/ingest")), apiKey)
        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofByteArrays(List.of(head, Files.readAllBytes(file), tail)))
        .build();
    HttpResponse<String> accepted = ServerRequests.send(client, request);
    JsonNode body = Json.MAPPER.readTree(accepted.body());
    if (accepted.statusCode() != 202) {
      return new Result(file, "refused", 0, body.path("error").path("code").asText() + ": "
          + body.path("error").path("message").asText());
    }
    String documentId = body.path("document_id").asText();
    Instant deadline = Instant.now().plus(WAIT_PER_FILE);
    while (Instant.now().isBefore(deadline)) {
      JsonNode status = Json.MAPPER.readTree(ServerRequests.send(client,
          ServerRequests.withApiKey(HttpRequest.newBuilder(URI.create(base + "/v1/knowledge/" + documentId + "/status")),
              apiKey).build()).body());
      String state = status.path("status").asText();
      if (state.equals("ready") || state.equals("failed")) {
        return new Result(file, state, status.path("chunk_count").asInt(),
            status.path("error_code").isNull() ? null
                : status.path("error_code").asText() + ": " + status.path("error_message").asText());
      }
      Thread.sleep(250); // polling the server's status endpoint, as its API asks
    }
    return new Result(file, "timeout", 0, "still processing after " + WAIT_PER_FILE.toMinutes() + " minutes");
  }

  /** A one-line bar redrawn in a terminal, one line per file otherwise. */
  private static final class Progress {
    private static final int WIDTH = 30;
    private final PrintWriter out;
    private final int total;
    private final boolean terminal = System.console() != null;
    private int done;

    Progress(PrintWriter out, int total) {
      this.out = out;
      this.total = total;
    }

    Result done(Result result) {
      done++;
      int filled = WIDTH * done / total;
      String bar = "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "] " + done + "/" + total + " "
          + result.file().getFileName() + ": " + result.status()
          + (result.chunks() > 0 ? " (" + result.chunks() + " chunks)" : "");
      if (terminal) {
        out.print("\r\033[2K" + bar);
      } else {
        out.println(bar);
      }
      out.flush();
      return result;
    }
  }
}
