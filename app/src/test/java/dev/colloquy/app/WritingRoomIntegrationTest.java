package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.mockllm.MockLlmSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Writing Room contract over HTTP on the real node, as its frontend uses it: Supabase-style JWTs
 * (HS256, {@code aud} authenticated, the user is {@code sub}), a chat created with a client-chosen id,
 * then turns streamed as {@code token}* → {@code citation}* → {@code gap}* → {@code done}; chats of
 * another user, or that do not exist, answer 403 before any stream opens.
 */
class WritingRoomIntegrationTest {

  private static final String SECRET = "writing-room-test-jwt-secret-0123456789";
  private static final String CHARACTER = "purplefrog";
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.auth.jwt.secret", SECRET,
      "colloquy.auth.jwt.default-tenant", "dev",
      "colloquy.cors.app-origins", "https://*.vercel.app"));

  @BeforeAll
  static void storyMaterial() throws Exception {
    JsonNode story = app.api().ingest("purplefrog.md", ("# PurpleFrog\n\n## Fears\n\nPurpleFrog fears the deep lake"
        + " behind the mill, where her brother vanished one winter.\n").getBytes(StandardCharsets.UTF_8));
    assertThat(story.path("status").asText()).as(story.toString()).isEqualTo("ready");
  }

  static String jwt(String user) {
    ObjectNode claims = SignedTokens.claims("authenticated", "https://project.supabase.co/auth/v1", "dev").put("sub", user);
    claims.remove("tenant_id");
    return SignedTokens.hs256(SignedTokens.header("HS256"), claims, SECRET.getBytes(StandardCharsets.UTF_8));
  }

  private static String bearer(String user) {
    return "Bearer " + jwt(user);
  }

  private static Api as(String user) {
    return new Api(app.colloquy().baseUrl(), jwt(user));
  }

  /** {@code POST /chats} as the frontend calls it before a conversation's first message. */
  private static String newChat(String user) throws Exception {
    String chatId = UUID.randomUUID().toString();
    Api.Response created = as(user).post("/chats", chat(chatId).toString());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return chatId;
  }

  private static ObjectNode chat(String chatId) {
    return Api.JSON.createObjectNode().put("chat_id", chatId).put("character_id", CHARACTER);
  }

  private static String turn(String chatId, String message) {
    return chat(chatId).put("message", message).toString();
  }

  private static SseClient stream(String user, String body, String... headers) throws Exception {
    String[] all = new String[headers.length + 2];
    all[0] = "Authorization";
    all[1] = bearer(user);
    System.arraycopy(headers, 0, all, 2, headers.length);
    return SeedStreams.post(app.colloquy().baseUrl(), "/chat/stream", body, all);
  }

  private static String names(List<SseEvent> events) {
    return events.stream().map(SseEvent::event).collect(Collectors.joining(" "));
  }

  @Test
  void aChatIsCreatedStreamedInTheContractsOrderAndListed() throws Exception {
    String chatId = UUID.randomUUID().toString();
    Api.Response created = as("alice").post("/chats", chat(chatId).toString());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.json().path("id").asText()).isEqualTo(chatId);
    assertThat(created.json().path("user_id").asText()).isEqualTo("alice");
    assertThat(created.json().path("character_id").asText()).isEqualTo(CHARACTER);
    assertThat(created.json().path("title").isNull()).isTrue();

    List<SseEvent> events;
    try (SseClient stream = stream("alice", turn(chatId, "What does PurpleFrog fear in the lake?"))) {
      assertThat(stream.response().headers().firstValue("Content-Type")).hasValueSatisfying(
          type -> assertThat(type).startsWith("text/event-stream"));
      assertThat(stream.response().headers().firstValue("Cache-Control")).hasValue("no-cache");
      assertThat(stream.response().headers().firstValue("X-Accel-Buffering")).hasValue("no");
      events = stream.readToEnd(WAIT);
    }

    assertThat(names(events)).matches("(token )+(citation )+(gap )*done");
    String answer = events.stream().filter(e -> e.event().equals("token")).map(e -> e.text("text"))
        .collect(Collectors.joining());
    assertThat(answer).isEqualTo(MockLlmSettings.defaults().text(MockLlmSettings.defaults().tokens()));
    SseEvent citation = events.stream().filter(e -> e.event().equals("citation")).findFirst().orElseThrow();
    assertThat(citation.json().properties()).extracting(Map.Entry::getKey).containsExactly("source", "chunk_index");
    assertThat(citation.text("source")).isEqualTo("purplefrog.md");
    assertThat(citation.json().path("chunk_index").isInt()).isTrue();
    assertThat(events.getLast().json().toString()).isEqualTo("{\"chat_id\":\"" + chatId + "\"}");
    assertThat(events).allSatisfy(event -> assertThat(event.id()).matches("[0-9a-f-]{36}:\\d+"));

    JsonNode listed = awaitChatListed("alice", chatId, "What does PurpleFrog fear in the lake?");
    assertThat(listed.path("character_id").asText()).isEqualTo(CHARACTER);
    assertThat(listed.path("user_id").asText()).isEqualTo("alice");
    JsonNode session = as("alice").session(chatId);
    assertThat(session.path("messages")).extracting(m -> m.path("role").asText()).containsExactly("user", "assistant");
    assertThat(session.path("narrative_state").path("cited_sources").toString()).contains("purplefrog.md");
  }

  /**
   * The ADR's own {@code streamCharacterChat()} (clients/writing-room-check: §3's api.ts and chat.ts
   * verbatim, type-checked with tsc), run by Node against this node as the chat page runs it.
   */
  @Test
  void theContractsTypeScriptClientStreamsAChatAndIsRefusedAnotherUsers() throws Exception {
    NodeProject client = NodeProject.installed("clients/writing-room-check");
    NodeProject.Run typecheck = client.exec(List.of("node_modules/.bin/tsc", "--noEmit"), Map.of(), Duration.ofMinutes(2));
    assertThat(typecheck.exitCode()).as(typecheck.output()).isZero();

    NodeProject.Run alice = client.exec(List.of("node_modules/.bin/tsx", "src/check.ts", "new", CHARACTER,
        "What does PurpleFrog fear?"), browserEnv("alice"), Duration.ofMinutes(2));
    assertThat(alice.exitCode()).as(alice.output()).isZero();
    JsonNode result = Api.JSON.readTree(alice.stdout().lines().reduce((a, b) -> b).orElseThrow());
    assertThat(result.path("created").asInt()).isEqualTo(201);
    List<String> events = result.path("received").valueStream().map(r -> r.path("event").asText()).toList();
    assertThat(String.join(" ", events)).matches("(token )+(citation )+(gap )*done");
    assertThat(result.path("received").valueStream().filter(r -> r.path("event").asText().equals("token"))
        .map(r -> r.path("data").path("text").asText()).collect(Collectors.joining()))
        .isEqualTo(MockLlmSettings.defaults().text(MockLlmSettings.defaults().tokens()));
    assertThat(result.path("received").get(events.size() - 1).path("data").path("chat_id").asText())
        .isEqualTo(result.path("chat_id").asText());

    NodeProject.Run bob = client.exec(List.of("node_modules/.bin/tsx", "src/check.ts", "stream",
        result.path("chat_id").asText(), CHARACTER, "Let me in"), browserEnv("bob"), Duration.ofMinutes(2));
    assertThat(bob.exitCode()).as(bob.output()).isZero();
    assertThat(Api.JSON.readTree(bob.stdout().lines().reduce((a, b) -> b).orElseThrow()).path("received").toString())
        .isEqualTo("[{\"event\":\"error\",\"data\":\"HTTP 403\"}]");
  }

  private static Map<String, String> browserEnv(String user) {
    return Map.of("NEXT_PUBLIC_API_URL", app.colloquy().baseUrl(), "SUPABASE_ACCESS_TOKEN", jwt(user));
  }

  @Test
  void aTurnTheKnowledgeDoesNotCoverEndsWithItsGapsBeforeDone() throws Exception {
    String chatId = newChat("alice");
    List<SseEvent> events;
    try (SseClient stream = stream("alice", turn(chatId, "Qwerty zxcvb asdfg?"))) {
      events = stream.readToEnd(WAIT);
    }
    assertThat(names(events)).matches("(token )+(citation )*(gap )+done");
    SseEvent gap = events.stream().filter(e -> e.event().equals("gap")).findFirst().orElseThrow();
    assertThat(gap.json().properties()).extracting(Map.Entry::getKey).containsExactly("attribute", "suggestion");
  }

  @Test
  void aClientThatLostTheStreamResumesWithLastEventIdAndGetsEveryFrameOnce() throws Exception {
    String chatId = newChat("alice");
    String body = turn(chatId, "Tell me about the lake.");
    List<SseEvent> first;
    try (SseClient stream = stream("alice", body)) {
      first = List.of(stream.next(WAIT), stream.next(WAIT), stream.next(WAIT));
    }
    List<SseEvent> rest;
    try (SseClient resumed = stream("alice", body, "Last-Event-ID", first.getLast().id())) {
      rest = resumed.readToEnd(WAIT);
    }

    String turnId = first.getFirst().id().split(":")[0];
    assertThat(rest.getFirst().id()).isEqualTo(turnId + ":4");
    assertThat(names(rest)).matches("(token )*(citation )*(gap )*done");
    assertThat(rest).extracting(SseEvent::id).doesNotContainAnyElementsOf(first.stream().map(SseEvent::id).toList());
    // The model was asked to answer once (the agent's own calls, routing the message and noting facts
    // about the user after the answer, ask other things).
    assertThat(app.mock().stats().chatRequests().stream().filter(asked -> {
      com.fasterxml.jackson.databind.JsonNode messages = asked.path("messages");
      return messages.get(messages.size() - 1).path("content").asText().equals("Tell me about the lake.");
    })).as("no second turn").hasSize(1);
    assertThat(as("alice").session(chatId).path("messages")).hasSize(2);

    Credentialed.Reply seenAll = Credentialed.send(app.colloquy().baseUrl(), "POST", "/chat/stream", body,
        "Authorization", bearer("alice"), "Last-Event-ID", rest.getLast().id());
    assertThat(seenAll.status()).as("nothing follows the last frame").isEqualTo(204);
  }

  @Test
  void anotherUsersChatAndAMissingOneAnswerTheSame403BeforeAnyStream() throws Exception {
    String chatId = newChat("alice");
    String missing = UUID.randomUUID().toString();

    Credentialed.Reply foreign = Credentialed.send(app.colloquy().baseUrl(), "POST", "/chat/stream",
        turn(chatId, "Whose chat is this?"), "Authorization", bearer("bob"));
    Credentialed.Reply absent = Credentialed.send(app.colloquy().baseUrl(), "POST", "/chat/stream",
        turn(missing, "Whose chat is this?"), "Authorization", bearer("bob"));
    Credentialed.Reply notAnId = Credentialed.send(app.colloquy().baseUrl(), "POST", "/chat/stream",
        turn("chat-1", "Whose chat is this?"), "Authorization", bearer("bob"));

    for (Credentialed.Reply refused : List.of(foreign, absent, notAnId)) {
      assertThat(refused.status()).as(refused.body()).isEqualTo(403);
      Credentialed.assertErrorBody(refused, "FORBIDDEN", "a chat that is not the caller's");
    }
    assertThat(withoutTraceId(foreign)).isEqualTo(withoutTraceId(absent));
    assertThat(as("bob").send("PATCH", "/chats/" + chatId, "{\"title\":\"Mine now\"}").status()).isEqualTo(403);
    assertThat(as("bob").send("DELETE", "/chats/" + chatId, null).status()).isEqualTo(403);
    assertThat(as("bob").get("/chats").json()).extracting(c -> c.path("id").asText()).doesNotContain(chatId);
    assertThat(as("alice").session(chatId).path("title").isNull()).as("untouched").isTrue();
    assertThat(as("alice").session(chatId).path("messages")).isEmpty();
  }

  @Test
  void aUsersRenameWinsOverTheAutomaticTitleAndADeletedChatIsGone() throws Exception {
    String chatId = newChat("alice");
    Api.Response renamed = as("alice").send("PATCH", "/chats/" + chatId, "{\"title\":\"Interview with PurpleFrog\"}");
    assertThat(renamed.status()).as(renamed.body()).isEqualTo(200);
    assertThat(renamed.json().path("title").asText()).isEqualTo("Interview with PurpleFrog");

    try (SseClient stream = stream("alice", turn(chatId, "Where were you born?"))) {
      assertThat(stream.readToEnd(WAIT).getLast().event()).isEqualTo("done");
    }
    assertThat(as("alice").session(chatId).path("title").asText()).isEqualTo("Interview with PurpleFrog");
    awaitChatListed("alice", chatId, "Interview with PurpleFrog");

    String titled = UUID.randomUUID().toString();
    Api.Response withTitle = as("alice").post("/chats", chat(titled).put("title", "Second interview").toString());
    assertThat(withTitle.status()).as(withTitle.body()).isEqualTo(201);
    assertThat(withTitle.json().path("title").asText()).isEqualTo("Second interview");

    Api.Response deleted = as("alice").send("DELETE", "/chats/" + chatId, null);
    assertThat(deleted.status()).isEqualTo(204);
    assertThat(deleted.body()).isEmpty();
    Credentialed.Reply afterwards = Credentialed.send(app.colloquy().baseUrl(), "POST", "/chat/stream",
        turn(chatId, "Still there?"), "Authorization", bearer("alice"));
    assertThat(afterwards.status()).isEqualTo(403);
    assertThat(as("alice").send("DELETE", "/chats/" + chatId, null).status()).isEqualTo(403);
  }

  @Test
  void badRequestsAreRefusedWithTheirCodeAndNothingIsRecorded() throws Exception {
    String chatId = newChat("alice");
    Api alice = as("alice");

    assertError(alice.post("/chat/stream", chat(chatId).toString()), 422, "MESSAGE_REQUIRED", "message");
    assertError(alice.post("/chat/stream", chat(chatId).put("message", 5).toString()), 422, "INVALID_FIELD", "message");
    assertError(alice.post("/chat/stream", "{\"chat_id\":"), 400, "MALFORMED_JSON", "JSON");
    assertError(alice.post("/chat/stream", chat(chatId).put("message", "  ").toString()), 422, "EMPTY_MESSAGE", "empty");
    assertError(alice.post("/chat/stream", turn(chatId, "Hi").replace(CHARACTER, "greenowl")), 422, "INVALID_FIELD",
        "character_id");
    assertError(alice.post("/chat/stream", turn(chatId, "Hi"), "Last-Event-ID", "7"), 400, "INVALID_LAST_EVENT_ID",
        "Last-Event-ID");
    assertError(alice.post("/chats", chat(chatId).toString()), 409, "SESSION_EXISTS", "exists");
    assertError(alice.post("/chats", chat("chat-1").toString()), 422, "INVALID_FIELD", "chat_id");
    assertError(alice.post("/chats", "{\"chat_id\":\"" + UUID.randomUUID() + "\"}"), 400, "FIELD_REQUIRED",
        "character_id");
    assertError(alice.send("PATCH", "/chats/" + chatId, "{\"title\":\"   \"}"), 422, "INVALID_TITLE", "empty");
    assertError(alice.send("PATCH", "/chats/" + chatId, "{}"), 400, "FIELD_REQUIRED", "title");

    assertThat(alice.session(chatId).path("messages")).isEmpty();
    assertThat(alice.session(chatId).path("title").isNull()).isTrue();
  }

  @Test
  void aClosedChatAndATurnInProgressAreRefusedBeforeTheStream() throws Exception {
    String closed = newChat("alice");
    assertThat(as("alice").post("/v1/sessions/" + closed + "/close", "").status()).isEqualTo(200);
    assertError(as("alice").post("/chat/stream", turn(closed, "Hello?")), 409, "SESSION_CLOSED", "closed");

    String busy = newChat("alice");
    MockLlmSettings normal = app.mock().settings();
    app.mock().reconfigure(TestColloquy.slowMock());
    try (SseClient running = stream("alice", turn(busy, "Talk for a long time"))) {
      assertThat(running.next(WAIT).event()).isEqualTo("token");
      assertError(as("alice").post("/chat/stream", turn(busy, "And another thing")), 409, "TURN_IN_PROGRESS", "running");
    } finally {
      app.mock().reconfigure(normal);
    }
  }

  @Test
  void aTurnThatFailsAfterTheStreamOpenedEndsWithAnErrorEvent() throws Exception {
    String chatId = newChat("alice");
    MockLlmSettings normal = app.mock().settings();
    app.mock().reconfigure(normal.failing(FailureMode.MID_STREAM, TestColloquy.MODEL, TestColloquy.BROKEN_MODEL));
    List<SseEvent> events;
    try (SseClient stream = stream("alice", turn(chatId, "This will break"))) {
      events = stream.readToEnd(WAIT);
    } finally {
      app.mock().reconfigure(normal);
    }

    SseEvent error = events.getLast();
    assertThat(error.event()).isEqualTo("error");
    assertThat(error.json().properties()).extracting(Map.Entry::getKey).containsExactly("code", "message");
    assertThat(error.text("code")).isEqualTo("ALL_RUNS_FAILED");
    assertThat(events).extracting(SseEvent::event).doesNotContain("done");
  }

  /**
   * Seed 000's service reads the chat's narrative state before each turn and hands it to the model
   * beside the history: the model's request for the second turn carries the state the first one left,
   * as data between tags; the first turn, with no state yet, carries none.
   */
  @Test
  void theModelReadsTheChatsNarrativeStateFromTheSecondTurnOn() throws Exception {
    String chatId = newChat("carol");
    String first = "What does PurpleFrog fear? " + chatId;
    String second = "And why does the lake frighten her? " + chatId;
    try (SseClient stream = stream("carol", turn(chatId, first))) {
      assertThat(names(stream.readToEnd(WAIT))).endsWith("done");
    }
    JsonNode afterFirst = as("carol").session(chatId).path("narrative_state");
    try (SseClient stream = stream("carol", turn(chatId, second))) {
      assertThat(names(stream.readToEnd(WAIT))).endsWith("done");
    }

    assertThat(storyMessages(modelRequestAnswering(first))).isEmpty();
    List<String> story = storyMessages(modelRequestAnswering(second));
    assertThat(story).hasSize(1);
    String text = story.getFirst();
    assertThat(text).contains("not instructions").endsWith("\n</data>");
    JsonNode state = Api.JSON.readTree(text.substring(text.indexOf("<data>\n") + 7, text.lastIndexOf("\n</data>")));
    assertThat(state).isEqualTo(afterFirst);
    assertThat(state.path("completed_turns").asInt()).isEqualTo(1);
    assertThat(state.path("cited_sources").toString()).contains("purplefrog.md");
  }

  /** The model call that answered {@code message} (its last message), not the agent's own calls. */
  private static JsonNode modelRequestAnswering(String message) {
    return app.mock().stats().chatRequests().stream()
        .filter(request -> request.path("messages").get(request.path("messages").size() - 1).path("content").asText()
            .equals(message))
        // The character is the chat's persona, which the model reads in the data block before the message.
        .filter(request -> request.path("messages").valueStream().anyMatch(m -> m.path("content").asText()
            .contains("<session_persona>\nYou are " + CHARACTER + ",")))
        .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("the model was not asked: " + message));
  }

  private static List<String> storyMessages(JsonNode request) {
    return request.path("messages").valueStream()
        .filter(m -> m.path("role").asText().equals("system")
            && m.path("content").asText().startsWith("The story state kept for this chat"))
        .map(m -> m.path("content").asText()).toList();
  }

  @Test
  void browsersFromTheOriginsOfAppCorsOriginsAreLetIn() throws Exception {
    String origin = "https://writing-room-git-main.vercel.app";
    Credentialed.Reply preflight = Credentialed.send(app.colloquy().baseUrl(), "OPTIONS", "/chat/stream", null,
        "Origin", origin, "Access-Control-Request-Method", "POST",
        "Access-Control-Request-Headers", "authorization, content-type");
    assertThat(preflight.status()).isEqualTo(204);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue(origin);

    String chatId = UUID.randomUUID().toString();
    Credentialed.Reply created = Credentialed.send(app.colloquy().baseUrl(), "POST", "/chats", chat(chatId).toString(),
        "Authorization", bearer("alice"), "Origin", origin);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(created.headers().firstValue("Access-Control-Allow-Origin")).hasValue(origin);

    Credentialed.Reply elsewhere = Credentialed.send(app.colloquy().baseUrl(), "GET", "/chats", null,
        "Authorization", bearer("alice"), "Origin", "https://vercel.app.attacker.example");
    assertThat(elsewhere.status()).isEqualTo(403);
    Credentialed.assertErrorBody(elsewhere, "ORIGIN_NOT_ALLOWED", "an origin outside APP_CORS_ORIGINS");
  }

  private static void assertError(Api.Response response, int status, String code, String messagePart) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    assertThat(response.json().path("error").path("code").asText()).as(response.body()).isEqualTo(code);
    assertThat(response.json().path("error").path("message").asText()).as(response.body()).containsIgnoringCase(messagePart);
  }

  private static String withoutTraceId(Credentialed.Reply reply) {
    ObjectNode body = (ObjectNode) reply.json();
    ((ObjectNode) body.path("error")).remove("trace_id");
    return body.toString();
  }

  /** GET /chats follows the journal by a moment (the read side): polls until the chat shows with its title. */
  private static JsonNode awaitChatListed(String user, String chatId, String title) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      Api.Response listed = as(user).get("/chats");
      assertThat(listed.status()).as(listed.body()).isEqualTo(200);
      for (JsonNode chat : listed.json()) {
        if (chat.path("id").asText().equals(chatId) && chat.path("title").asText().equals(title)) {
          return chat;
        }
      }
      assertThat(System.nanoTime()).as("chat " + chatId + " listed with title " + title + ": " + listed.body())
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }
}
