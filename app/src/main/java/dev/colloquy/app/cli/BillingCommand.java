package dev.colloquy.app.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.app.Colloquy;
import dev.colloquy.config.ColloquySettings;
import dev.colloquy.http.BillingReport;
import dev.colloquy.http.SessionRoutes;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.readside.BillingPeriod;
import dev.colloquy.persistence.readside.JdbcBillingRecords;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code colloquy billing}: the billing records (session starts and ends with their totals) of a period. */
@Command(name = "billing", mixinStandardHelpOptions = true,
    description = {"Prints a tenant's billing records (session_start, and session_end with its reason, "
        + "turns, tokens, cost and duration) as CSV, or as JSON with --json.",
        "Reads the data directory when no server runs on it (--tenant, the development tenant by default), "
            + "or a running server with --server as the tenant of --api-key."})
final class BillingCommand implements Callable<Integer> {

  @Option(names = "--period", paramLabel = "YYYY-MM", description = "One month")
  String period;

  @Option(names = "--from", paramLabel = "YYYY-MM-DD", description = "First day (UTC), included")
  String from;

  @Option(names = "--to", paramLabel = "YYYY-MM-DD", description = "Last day (UTC), included")
  String to;

  @Option(names = "--json", description = "Print JSON instead of CSV")
  boolean json;

  @Option(names = "--server", paramLabel = "URL", description = "A running Colloquy, e.g. http://localhost:8080")
  URI server;

  @Option(names = "--api-key", paramLabel = "KEY", defaultValue = "${env:COLLOQUY_API_KEY}",
      description = "The tenant's API key, for --server (env COLLOQUY_API_KEY)")
  String apiKey;

  @Option(names = "--tenant", paramLabel = "TENANT_ID", defaultValue = SessionRoutes.DEFAULT_TENANT,
      description = "The tenant whose records are read from the data directory (default: the development tenant)")
  String tenant;

  @Option(names = "--data-dir", description = "Data directory (env COLLOQUY_DATA_DIR, default ./data)")
  Path dataDir;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    BillingPeriod billingPeriod = BillingPeriod.of(Optional.ofNullable(from), Optional.ofNullable(to),
        Optional.ofNullable(period));
    String output = server != null ? fromServer() : fromDatabase(billingPeriod);
    PrintWriter out = spec.commandLine().getOut();
    out.print(json ? output + System.lineSeparator() : output);
    out.flush();
    return 0;
  }

  private String fromDatabase(BillingPeriod billingPeriod) {
    Config overrides = dataDir == null ? ConfigFactory.empty()
        : ConfigFactory.parseMap(Map.of("colloquy.storage.data-dir", dataDir.toString()));
    ColloquySettings settings = ColloquySettings.create(Colloquy.loadConfig(overrides));
    try (Database database = Database.openExisting(settings.storage())) {
      BillingReport report = BillingReport.of(tenant, billingPeriod,
          new JdbcBillingRecords(database.dataSource()).list(tenant, billingPeriod));
      return json ? report.json() : report.csv();
    }
  }

  private String fromServer() throws Exception {
    List<String> query = new ArrayList<>();
    query.add("format=" + (json ? "json" : "csv"));
    parameter(query, "period", period);
    parameter(query, "from", from);
    parameter(query, "to", to);
    URI url = URI.create(server.toString().replaceAll("/+$", "") + "/v1/billing?" + String.join("&", query));
    try (HttpClient client = HttpClient.newHttpClient()) {
      HttpResponse<String> response = ServerRequests.send(client,
          ServerRequests.withApiKey(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30)), apiKey).GET().build());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
      }
      return response.body();
    }
  }

  private static void parameter(List<String> query, String name, String value) {
    if (value != null) {
      query.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
    }
  }
}
