package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Forks, exports and imports over HTTP: a fork at a turn is a new session with the turns before it and
 * the original is untouched; an export is JSON Lines that imports back as a new session with the same
 * history; a bad point, a foreign session or a journal that is not one session's history is refused
 * with a clear error.
 */
class ForkImportIntegrationTest {

  private static final String ADMIN_TOKEN = "admin-token-for-fork-tests";

  @RegisterExtension
  static final RunningColloquy app =
      RunningColloquy.with(TestColloquy.fastMock(), Map.of("colloquy.admin.token", ADMIN_TOKEN));

  private static Api api;
  private static String original;

  @BeforeAll
  static void aSessionWithThreeTurns() throws Exception {
    api = app.api();
    original = api.openSession();
    for (int i = 1; i <= 3; i++) {
      Api.Response turn = api.post("/v1/sessions/" + original + "/turns", Api.turn("question " + i));
      assertThat(turn.status()).as(turn.body()).isEqualTo(200);
    }
  }

  private static List<String> userMessages(JsonNode session) {
    List<String> messages = new ArrayList<>();
    session.path("messages").forEach(message -> {
      if (message.path("role").asText().equals("user")) {
        messages.add(message.path("content").asText());
      }
    });
    return messages;
  }

  @Test
  void aForkHasTheTurnsBeforeItsPointRunsTheNextAgainAndLeavesTheOriginalAlone() throws Exception {
    String before = api.get("/v1/sessions/" + original + "/journal").body();

    Api.Response forked = api.post("/v1/sessions/" + original + "/fork", "{\"at_turn\": 3}");

    assertThat(forked.status()).as(forked.body()).isEqualTo(201);
    JsonNode body = forked.json();
    String fork = body.path("session_id").asText();
    assertThat(fork).isNotEqualTo(original);
    assertThat(body.path("forked_from").asText()).isEqualTo(original);
    assertThat(body.path("at_turn").asInt()).isEqualTo(3);
    assertThat(body.path("inherited_turns").asInt()).isEqualTo(2);
    assertThat(body.path("at_turn_message").asText()).isEqualTo("question 3");
    assertThat(userMessages(api.session(fork))).containsExactly("question 1", "question 2");

    Api.Response again = api.post("/v1/sessions/" + fork + "/turns", Api.turn("question 3, asked another way"));
    assertThat(again.status()).as(again.body()).isEqualTo(200);
    assertThat(userMessages(api.session(fork)))
        .containsExactly("question 1", "question 2", "question 3, asked another way");
    assertThat(userMessages(api.session(original))).containsExactly("question 1", "question 2", "question 3");
    assertThat(api.get("/v1/sessions/" + original + "/journal").body()).isEqualTo(before);
  }

  @Test
  void aBadForkPointIsRefusedWithTheAllowedRange() throws Exception {
    Api.Response missing = api.post("/v1/sessions/" + original + "/fork", "{}");
    assertError(missing, 400, "FIELD_REQUIRED", "at_turn");

    for (String bad : List.of("0", "5", "-1")) {
      Api.Response refused = api.post("/v1/sessions/" + original + "/fork", "{\"at_turn\": " + bad + "}");
      assertError(refused, 422, "INVALID_FORK_POINT", "from 1 to 4");
    }
    for (String bad : List.of("\"two\"", "2.5", "true")) {
      Api.Response refused = api.post("/v1/sessions/" + original + "/fork", "{\"at_turn\": " + bad + "}");
      assertError(refused, 422, "INVALID_FORK_POINT", "whole number");
    }
    assertError(api.post("/v1/sessions/" + original + "/fork", "{\"at_turn\": "), 400, "MALFORMED_JSON", "not valid JSON");
    assertError(api.post("/v1/sessions/" + UUID.randomUUID() + "/fork", "{\"at_turn\": 1}"), 404, "SESSION_NOT_FOUND",
        "Session not found");
  }

  @Test
  void anExportIsJsonLinesThatImportsAsANewSessionWithTheSameHistory() throws Exception {
    Api.Response export = api.get("/v1/sessions/" + original + "/export");
    assertThat(export.status()).as(export.body()).isEqualTo(200);
    assertThat(export.contentType()).startsWith("application/x-ndjson");
    List<String> lines = export.body().lines().toList();
    int journaled = api.get("/v1/sessions/" + original + "/journal").json().path("events").size();
    assertThat(lines).hasSize(journaled);
    for (int i = 0; i < lines.size(); i++) {
      JsonNode line = Api.JSON.readTree(lines.get(i));
      assertThat(line.path("sequence_nr").asLong()).isEqualTo(i + 1);
      assertThat(line.path("event").isObject()).isTrue();
    }

    Api.Response imported = api.post("/v1/sessions/import", export.body(), "Content-Type", "application/x-ndjson");

    assertThat(imported.status()).as(imported.body()).isEqualTo(201);
    String copy = imported.json().path("session_id").asText();
    assertThat(copy).isNotEqualTo(original);
    assertThat(imported.json().path("imported_from").asText()).isEqualTo(original);
    assertThat(imported.json().path("events").asInt()).isEqualTo(journaled);
    assertThat(api.session(copy).path("messages")).isEqualTo(api.session(original).path("messages"));
    Api.Response next = api.post("/v1/sessions/" + copy + "/turns", Api.turn("question 4"));
    assertThat(next.status()).as(next.body()).isEqualTo(200);
  }

  @Test
  void aJournalThatIsNotOneSessionsHistoryIsRefusedNamingTheLine() throws Exception {
    List<String> lines = api.get("/v1/sessions/" + original + "/export").body().lines().toList();

    assertError(importing(""), 422, "INVALID_JOURNAL", "no events");
    assertError(api.post("/v1/sessions/import", String.join("\n", lines), "Content-Type", "text/plain"), 415,
        "UNSUPPORTED_MEDIA_TYPE", "application/json");
    assertError(importing(lines.get(0) + "\n{not json\n"), 422, "INVALID_JOURNAL", "line 2 is not JSON");
    assertError(importing(lines.get(0) + "\n[1, 2]\n"), 422, "INVALID_JOURNAL", "line 2 is not a journal entry");
    assertError(importing(String.join("\n", lines.subList(1, lines.size()))), 422, "INVALID_JOURNAL",
        "line 1 has sequence_nr 2 where 1 belongs");
    assertError(importing(lines.get(0) + "\n" + lines.get(2)), 422, "INVALID_JOURNAL", "line 2 has sequence_nr 3");
    ObjectNode second = (ObjectNode) Api.JSON.readTree(lines.get(1));
    ((ObjectNode) second.path("event")).put("type", "NoSuchEvent");
    assertError(importing(lines.get(0) + "\n" + second), 422, "INVALID_JOURNAL", "line 2 holds no event Colloquy knows");
    String withoutOpening = renumbered(lines.subList(1, lines.size()));
    assertError(importing(withoutOpening), 422, "INVALID_JOURNAL", "event 1");
  }

  @Test
  void anotherTenantCanNeitherForkNorExportTheSession() throws Exception {
    Credentialed.Reply created = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/admin/tenants",
        "{\"name\": \"fork-outsider\"}", "Authorization", "Bearer " + ADMIN_TOKEN);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    Api outsider = api.withKey(created.json().path("api_key").asText());

    assertError(outsider.post("/v1/sessions/" + original + "/fork", "{\"at_turn\": 1}"), 404, "SESSION_NOT_FOUND",
        "Session not found");
    assertError(outsider.get("/v1/sessions/" + original + "/export"), 404, "SESSION_NOT_FOUND", "Session not found");

    Api.Response imported = outsider.post("/v1/sessions/import", api.get("/v1/sessions/" + original + "/export").body());
    assertThat(imported.status()).as(imported.body()).isEqualTo(201);
    String copy = imported.json().path("session_id").asText();
    assertThat(outsider.get("/v1/sessions/" + copy).status()).isEqualTo(200);
    assertThat(api.get("/v1/sessions/" + copy).status()).as("an import belongs to the importer's tenant").isEqualTo(404);
  }

  @Test
  void aForkOrAnImportCountsAgainstTheTenantsOpenSessions() throws Exception {
    String key = LimitedTenants.keyOfNewTenant(app.colloquy(), "{\"max_open_sessions\": 1}");
    String only = LimitedTenants.openSession(app.colloquy(), key);
    LimitedTenants.awaitOpenListed(app.colloquy(), key, 1);
    Api limited = api.withKey(key);

    Credentialed.Reply fork = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/sessions/" + only + "/fork",
        "{\"at_turn\": 1}", "Authorization", "Bearer " + key);
    LimitedTenants.assertTooMany(fork, "QUOTA_EXCEEDED", "a fork over max_open_sessions");
    Credentialed.Reply imported = Credentialed.send(app.colloquy().baseUrl(), "POST", "/v1/sessions/import",
        limited.get("/v1/sessions/" + only + "/export").body(), "Authorization", "Bearer " + key);
    LimitedTenants.assertTooMany(imported, "QUOTA_EXCEEDED", "an import over max_open_sessions");
  }

  @Test
  void theCommandLineForksATurnWithAnotherMessageAndShowsWhereTheTwoSessionsDiverge() throws Exception {
    String server = app.colloquy().baseUrl();
    Output forked = cli("replay", original, "--fork-at-turn", "2", "--message", "question 2, put another way",
        "--server", server, "--api-key", api.apiKey());
    assertThat(forked.exitCode()).as(forked.err()).isZero();
    java.util.regex.Matcher id = java.util.regex.Pattern.compile("session ([0-9a-f-]{36}), 1 turns inherited")
        .matcher(forked.out());
    assertThat(id.find()).as(forked.out()).isTrue();
    String fork = id.group(1);
    assertThat(userMessages(api.session(fork))).containsExactly("question 1", "question 2, put another way");

    Output diff = cli("replay", "--diff", original, fork, "--server", server, "--api-key", api.apiKey());

    assertThat(diff.exitCode()).as(diff.err()).isZero();
    assertThat(diff.out()).contains("forked from " + original + " at turn 2", "A and B diverge at turn 2",
        "\"question 2\"", "\"question 2, put another way\"");
    Output same = cli("replay", "--diff", original, original, "--server", server, "--api-key", api.apiKey());
    assertThat(same.out()).contains("A and B agree on all 3 turns");

    Output badPoint = cli("replay", original, "--fork-at-turn", "9", "--server", server, "--api-key", api.apiKey());
    assertThat(badPoint.exitCode()).isEqualTo(1);
    assertThat(badPoint.err()).contains("422", "INVALID_FORK_POINT", "from 1 to 4");
    Output missing = cli("replay", "--diff", original, UUID.randomUUID().toString(), "--server", server,
        "--api-key", api.apiKey());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("no journal for session");
  }

  private record Output(int exitCode, String out, String err) {}

  private static Output cli(String... args) {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    int exitCode = new picocli.CommandLine(new dev.colloquy.app.cli.Cli())
        .setOut(new java.io.PrintWriter(out, true)).setErr(new java.io.PrintWriter(err, true))
        .execute(args);
    return new Output(exitCode, out.toString(), err.toString());
  }

  private static Api.Response importing(String body) throws Exception {
    return api.post("/v1/sessions/import", body, "Content-Type", "application/x-ndjson");
  }

  /** The lines numbered again from 1, so that only their content is at fault. */
  private static String renumbered(List<String> lines) throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      ObjectNode line = (ObjectNode) Api.JSON.readTree(lines.get(i));
      text.append(line.put("sequence_nr", i + 1)).append('\n');
    }
    return text.toString();
  }

  private static void assertError(Api.Response response, int status, String code, String message) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    JsonNode error = response.json().path("error");
    assertThat(error.path("code").asText()).as(response.body()).isEqualTo(code);
    assertThat(error.path("message").asText()).as(response.body()).contains(message);
    assertThat(error.path("trace_id").asText()).isNotBlank();
  }
}
