package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.ingestion.IngestionException;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document in http/src/main/resources describes the routes as they are: every path and
 * method the routes serve (and no other), every error code they can answer, every canonical SSE event,
 * and the validation limits of the request bodies. It is served at {@code GET /openapi.yaml}.
 */
class OpenApiDocumentTest {

  /**
   * Every route of SessionRoutes, JournalRoutes, KnowledgeRoutes, BillingRoutes, HealthRoutes and OpenApiRoutes, as
   * OpenAPI path templates. A route added to the code must be added here and to the document.
   */
  private static final Map<String, Set<String>> ROUTES = new TreeMap<>(Map.ofEntries(
      Map.entry("/v1/sessions", Set.of("get", "post")),
      Map.entry("/v1/sessions/{session_id}", Set.of("get", "patch", "delete")),
      Map.entry("/v1/sessions/{session_id}/close", Set.of("post")),
      Map.entry("/v1/sessions/{session_id}/handback", Set.of("post")),
      Map.entry("/v1/users/{user_id}/memories", Set.of("get", "delete")),
      Map.entry("/v1/users/{user_id}/memories/{memory_id}", Set.of("delete")),
      Map.entry("/v1/users/{user_id}/context", Set.of("get", "put")),
      Map.entry("/v1/sessions/{session_id}/turns", Set.of("post")),
      Map.entry("/v1/sessions/{session_id}/turns/{turn_id}/events", Set.of("get")),
      Map.entry("/v1/sessions/{session_id}/turns/{turn_id}/cancel", Set.of("post")),
      Map.entry("/v1/sessions/{session_id}/journal", Set.of("get")),
      Map.entry("/v1/sessions/{session_id}/export", Set.of("get")),
      Map.entry("/v1/sessions/{session_id}/fork", Set.of("post")),
      Map.entry("/v1/sessions/import", Set.of("post")),
      Map.entry("/v1/config", Set.of("get", "put")),
      Map.entry("/v1/knowledge/ingest", Set.of("post")),
      Map.entry("/v1/knowledge/list", Set.of("get")),
      Map.entry("/v1/knowledge/{document_id}/status", Set.of("get")),
      Map.entry("/v1/knowledge/{document_id}/chunks/{chunk_index}", Set.of("get")),
      Map.entry("/v1/knowledge/{document_id}", Set.of("delete")),
      Map.entry("/v1/billing", Set.of("get")),
      Map.entry("/health", Set.of("get")),
      Map.entry("/ready", Set.of("get")),
      Map.entry("/metrics", Set.of("get")),
      Map.entry("/openapi.yaml", Set.of("get")),
      Map.entry("/v1/admin/tenants", Set.of("get", "post")),
      Map.entry("/v1/admin/tenants/{tenant_id}/keys", Set.of("post")),
      Map.entry("/v1/admin/keys/{key_id}", Set.of("delete")),
      // The OpenAI-compatible dialect (dev.colloquy.http.dialect.OpenAiRoutes).
      Map.entry("/v1/chat/completions", Set.of("post")),
      Map.entry("/v1/models", Set.of("get")),
      // The fan-out dialect (dev.colloquy.http.dialect.FanOutRoutes).
      Map.entry("/v1/conversations", Set.of("post")),
      Map.entry("/v1/conversations/{conversation_id}", Set.of("get")),
      Map.entry("/v1/conversations/{conversation_id}/turns", Set.of("post")),
      Map.entry("/v1/turns/{turn_id}/stream", Set.of("get")),
      // The seed dialects (package dialect) and the Support agent's health route (HealthRoutes).
      Map.entry("/chat/stream", Set.of("post")),
      Map.entry("/chats", Set.of("get", "post")),
      Map.entry("/chats/{chat_id}", Set.of("patch", "delete")),
      Map.entry("/functions/v1/chat", Set.of("post")),
      Map.entry("/functions/v1/embed", Set.of("post")),
      Map.entry("/v1/health", Set.of("get")),
      Map.entry("/v1/session/start", Set.of("post")),
      Map.entry("/v1/session/{session_id}/end", Set.of("post")),
      Map.entry("/v1/session/{session_id}/transcript", Set.of("get")),
      Map.entry("/v1/chat/message", Set.of("post")),
      Map.entry("/v1/chat/message/stream", Set.of("get"))));

  private static final Set<String> HTTP_METHODS =
      Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

  /** Codes that reach clients from code outside the http module's sources and constants read below. */
  private static final Set<String> ENGINE_CODES = Set.of(
      "ALL_RUNS_FAILED", // TurnSupervisor: turn.failed when every run failed
      "RUN_CRASHED"); // TurnSupervisor: run.failed when a run's actor stopped without reporting

  private static final Pattern CODE_LITERAL = Pattern.compile("\"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\"");

  private static JsonNode doc;

  @BeforeAll
  static void parse() throws IOException {
    doc = new YAMLMapper().readTree(OpenApiRoutes.read());
  }

  @Test
  void isOpenApi31WithInfoAndComponents() {
    assertThat(doc.path("openapi").asText()).startsWith("3.1.");
    assertThat(doc.path("info").path("title").asText()).isNotBlank();
    assertThat(doc.path("info").path("version").asText()).isNotBlank();
    assertThat(doc.path("components").path("schemas").path("ErrorBody").isObject()).isTrue();
  }

  @Test
  void documentsExactlyTheRoutesTheCodeServes() {
    Map<String, Set<String>> documented = new TreeMap<>();
    doc.path("paths").properties().forEach(path -> {
      Set<String> methods = new TreeSet<>();
      path.getValue().fieldNames().forEachRemaining(name -> {
        if (HTTP_METHODS.contains(name)) {
          methods.add(name);
        }
      });
      documented.put(path.getKey(), methods);
    });
    Map<String, Set<String>> expected = new TreeMap<>();
    ROUTES.forEach((path, methods) -> expected.put(path, new TreeSet<>(methods)));
    assertThat(documented).isEqualTo(expected);
  }

  @Test
  void everyOperationHasAnIdResponsesAndItsPathParameters() {
    Set<String> operationIds = new TreeSet<>();
    Pattern template = Pattern.compile("\\{([^}]+)}");
    doc.path("paths").properties().forEach(path -> {
      Set<String> inPath = new TreeSet<>();
      Matcher m = template.matcher(path.getKey());
      while (m.find()) {
        inPath.add(m.group(1));
      }
      Set<String> declared = new TreeSet<>(pathParameters(path.getValue().path("parameters")));
      path.getValue().properties().forEach(operation -> {
        if (!HTTP_METHODS.contains(operation.getKey())) {
          return;
        }
        String where = operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
        JsonNode op = operation.getValue();
        assertThat(operationIds.add(op.path("operationId").asText())).as(where + " has a unique operationId").isTrue();
        assertThat(op.path("responses").size()).as(where + " responses").isPositive();
        assertThat(op.path("responses").has("default")).as(where + " documents the error body by default").isTrue();
        Set<String> all = new TreeSet<>(declared);
        all.addAll(pathParameters(op.path("parameters")));
        assertThat(all).as(where + " path parameters").isEqualTo(inPath);
      });
    });
  }

  @Test
  void everyRefResolves() {
    List<String> refs = new ArrayList<>();
    collectRefs(doc, refs);
    assertThat(refs).isNotEmpty();
    for (String ref : refs) {
      assertThat(ref).startsWith("#/");
      assertThat(doc.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
    }
  }

  @Test
  void everyErrorCodeTheRoutesCanAnswerIsDocumented() throws Exception {
    Set<String> documented = new TreeSet<>();
    collectEnumsAndConsts(doc, documented);

    Set<String> codes = new TreeSet<>();
    // The engine's refusals (ChatSession.Rejected) and turn failure codes.
    codes.addAll(stringConstants(ChatSession.class));
    // Model failures, reported in run.failed.
    codes.addAll(stringConstants(ModelException.class));
    // Ingestion refusals as KnowledgeRoutes.refused maps them.
    for (IngestionException.Code code : IngestionException.Code.values()) {
      codes.add(KnowledgeRoutes.refused(new IngestionException(code, "refused")).code());
    }
    codes.addAll(ENGINE_CODES);
    for (ErrorCode code : ErrorCode.values()) {
      codes.add(code.name());
    }
    // Every code literal in the http routes (ApiException, Errors.response, RequestBodies, ...).
    codes.addAll(codeLiteralsInHttpSources());
    // Authentication's refusals and the admin API's (package dev.colloquy.http.auth).
    codes.addAll(Set.of("UNAUTHENTICATED", "FORBIDDEN", "INVALID_TENANT_NAME", "TENANT_EXISTS", "TENANT_NOT_FOUND",
        "KEY_NOT_FOUND", "INVALID_KEY_KIND", "ORIGIN_NOT_ALLOWED"));

    assertThat(codes).contains("SESSION_NOT_FOUND", "TURN_IN_PROGRESS", "MALFORMED_JSON", "MESSAGE_TOO_LARGE",
        "INVALID_LAST_EVENT_ID", "UNAUTHENTICATED", "DOCUMENT_NOT_FOUND", "METHOD_NOT_ALLOWED", "MODEL_TIMEOUT");
    assertThat(documented).containsAll(codes);
  }

  @Test
  void everyErrorCodeIsDocumentedUnderItsStatus() {
    // Codes any route may answer are documented once, in the default response.
    Set<String> anyRoute = codesUnderStatus("default");
    List<String> undocumented = new ArrayList<>();
    for (ErrorCode code : ErrorCode.values()) {
      String status = String.valueOf(code.httpStatus());
      if (!codesUnderStatus(status).contains(code.name()) && !anyRoute.contains(code.name())) {
        undocumented.add(code + " " + status);
      }
    }
    assertThat(undocumented).as("codes not documented under their status").isEmpty();
  }

  @Test
  void everyCanonicalEventIsDocumentedWithItsDataSchema() throws Exception {
    Set<String> names = new TreeSet<>();
    for (Class<?> type : eventTypes(StreamEvent.class)) {
      names.add(CanonicalEvents.name(instanceOf(type)));
    }
    assertThat(names).hasSize(14).contains("turn.started", "intent", "escalation", "tool.called", "tool.result",
        "token", "turn.restarted", "turn.completed", "turn.cancelled");

    JsonNode schemas = doc.path("components").path("schemas");
    Set<String> documented = new TreeSet<>();
    for (JsonNode member : schemas.path("TurnStreamFrame").path("oneOf")) {
      JsonNode frame = doc.at(member.path("$ref").asText().substring(1));
      String event = frame.path("properties").path("event").path("const").asText();
      documented.add(event);
      String dataRef = frame.path("properties").path("data").path("$ref").asText();
      JsonNode data = doc.at(dataRef.substring(1));
      assertThat(data.isMissingNode()).as("data schema of " + event).isFalse();
      assertThat(data.path("allOf").get(0).path("$ref").asText())
          .as(event + " data carries session_id, turn_id and trace_id")
          .isEqualTo("#/components/schemas/EventCommon");
    }
    assertThat(documented).isEqualTo(names);
    assertThat(schemas.path("EventCommon").path("required"))
        .extracting(JsonNode::asText).containsExactlyInAnyOrder("session_id", "turn_id", "trace_id");

    JsonNode sse = doc.at("/paths/~1v1~1sessions~1{session_id}~1turns/post/responses/200/content");
    assertThat(sse.has("text/event-stream")).isTrue();
    assertThat(sse.has("application/json")).isTrue();
    assertThat(doc.at("/paths/~1v1~1sessions~1{session_id}~1turns~1{turn_id}~1events/get/responses/200/content")
        .has("text/event-stream")).isTrue();
  }

  @Test
  void requestLimitsMatchTheCode() {
    Config config = ConfigFactory.load();
    JsonNode turn = doc.path("components").path("schemas").path("NewTurn");
    assertThat(turn.path("required")).extracting(JsonNode::asText).containsExactly("message");
    assertThat(turn.at("/properties/message/maxLength").asLong())
        .isEqualTo(config.getBytes("colloquy.http.max-message-bytes"));
    assertThat(turn.at("/properties/idempotency_key/minLength").asInt()).isEqualTo(1);
    assertThat(turn.at("/properties/idempotency_key/maxLength").asInt()).isEqualTo(RequestBodies.MAX_IDEMPOTENCY_KEY);
    assertThat(turn.at("/properties/turn_id/format").asText()).isEqualTo("uuid");
    assertThat(turn.at("/properties/models/items/type").asText()).isEqualTo("string");
    assertThat(turn.at("/properties/models/maxItems").asInt()).isEqualTo(config.getInt("colloquy.llm.max-models-per-turn"));

    JsonNode session = doc.path("components").path("schemas").path("NewSession");
    assertThat(session.at("/properties/persona/maxLength").asInt()).isEqualTo(RequestBodies.MAX_PERSONA);
    assertThat(session.at("/properties/session_id/format").asText()).isEqualTo("uuid");

    JsonNode journal = doc.at("/paths/~1v1~1sessions~1{session_id}~1journal/get");
    assertThat(doc.path("security").toString()).contains("apiKeyBearer", "apiKeyHeader", "jwt");
    assertThat(doc.at("/components/securitySchemes/adminToken/scheme").asText()).isEqualTo("bearer");
    assertThat(doc.at("/paths/~1v1~1knowledge~1ingest/post/requestBody/content").has("multipart/form-data")).isTrue();
  }

  @Test
  void servesTheDocumentAtOpenApiYaml() throws Exception {
    ActorTestKit testKit = ActorTestKit.create("openapi", ConfigFactory.parseString("pekko.actor.provider = local")
        .withFallback(ConfigFactory.load()));
    try {
      ServerBinding binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
          .bind(new OpenApiRoutes().route()).toCompletableFuture().get(10, TimeUnit.SECONDS);
      URI uri = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/openapi.yaml");
      HttpResponse<byte[]> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type")).hasValue("application/yaml");
      assertThat(response.body()).isEqualTo(OpenApiRoutes.read());
      assertThat(new String(response.body(), StandardCharsets.UTF_8)).startsWith("openapi: 3.1");
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      testKit.shutdownTestKit();
    }
  }

  // ---- helpers ----

  private static List<String> pathParameters(JsonNode parameters) {
    List<String> names = new ArrayList<>();
    for (JsonNode parameter : parameters) {
      JsonNode resolved = parameter.has("$ref") ? doc.at(parameter.path("$ref").asText().substring(1)) : parameter;
      if (resolved.path("in").asText().equals("path")) {
        assertThat(resolved.path("required").asBoolean()).as(resolved.path("name").asText() + " is required").isTrue();
        names.add(resolved.path("name").asText());
      }
    }
    return names;
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.isObject()) {
      node.properties().forEach(field -> {
        if (field.getKey().equals("$ref") && field.getValue().isTextual()) {
          refs.add(field.getValue().asText());
        } else {
          collectRefs(field.getValue(), refs);
        }
      });
    } else if (node.isArray()) {
      node.forEach(element -> collectRefs(element, refs));
    }
  }

  /** Every string of an {@code enum} or {@code const} anywhere in the document. */
  private static void collectEnumsAndConsts(JsonNode node, Set<String> values) {
    if (node.isObject()) {
      node.properties().forEach(field -> {
        JsonNode value = field.getValue();
        if (field.getKey().equals("const") && value.isTextual()) {
          values.add(value.asText());
        } else if (field.getKey().equals("enum") && value.isArray()) {
          value.forEach(element -> values.add(element.asText()));
        } else {
          collectEnumsAndConsts(value, values);
        }
      });
    } else if (node.isArray()) {
      node.forEach(element -> collectEnumsAndConsts(element, values));
    }
  }

  /** The error codes an operation documents under a status, over every operation. */
  private static Set<String> codesUnderStatus(String status) {
    Set<String> codes = new TreeSet<>();
    doc.path("paths").forEach(path -> path.properties().forEach(operation -> {
      JsonNode response = operation.getValue().path("responses").path(status);
      if (response.has("$ref")) {
        response = doc.at(response.path("$ref").asText().substring(1));
      }
      collectEnumsAndConsts(resolveRefs(response.path("content")), codes);
    }));
    return codes;
  }

  /** A copy of the node with every {@code $ref} replaced by what it points to (one level deep per ref). */
  private static JsonNode resolveRefs(JsonNode node) {
    if (node.isObject()) {
      if (node.has("$ref")) {
        return resolveRefs(doc.at(node.path("$ref").asText().substring(1)));
      }
      var copy = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      node.properties().forEach(field -> copy.set(field.getKey(), resolveRefs(field.getValue())));
      return copy;
    }
    if (node.isArray()) {
      var copy = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
      node.forEach(element -> copy.add(resolveRefs(element)));
      return copy;
    }
    return node;
  }

  private static Set<String> stringConstants(Class<?> type) throws IllegalAccessException {
    Set<String> values = new TreeSet<>();
    for (Field field : type.getDeclaredFields()) {
      int modifiers = field.getModifiers();
      if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)
          && field.getType() == String.class) {
        values.add((String) field.get(null));
      }
    }
    return values;
  }

  /** The upper-snake string literals of the http package's and the dialects' main sources: every one is an error code. */
  private static Set<String> codeLiteralsInHttpSources() throws IOException {
    Path sources = Path.of(System.getProperty("basedir", "."), "src", "main", "java", "dev", "colloquy", "http");
    assertThat(sources).isDirectory();
    Set<String> codes = new TreeSet<>();
    try (Stream<Path> files = Stream.concat(Files.list(sources), Files.list(sources.resolve("dialect")))) {
      for (Iterator<Path> it = files.filter(f -> f.toString().endsWith(".java")).iterator(); it.hasNext(); ) {
        Matcher m = CODE_LITERAL.matcher(Files.readString(it.next()));
        while (m.find()) {
          codes.add(m.group(1));
        }
      }
    }
    return codes;
  }

  /** The records of a sealed hierarchy of events, through its sealed sub-interfaces. */
  private static List<Class<?>> eventTypes(Class<?> sealed) {
    List<Class<?>> types = new ArrayList<>();
    for (Class<?> type : sealed.getPermittedSubclasses()) {
      if (type.isSealed()) {
        types.addAll(eventTypes(type));
      } else {
        types.add(type);
      }
    }
    return types;
  }

  /** An instance of a StreamEvent record with default component values; CanonicalEvents.name needs only its type. */
  private static StreamEvent instanceOf(Class<?> type) throws ReflectiveOperationException {
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      values[i] = defaultValue(types[i]);
    }
    return (StreamEvent) type.getDeclaredConstructor(types).newInstance(values);
  }

  private static Object defaultValue(Class<?> type) {
    if (!type.isPrimitive()) {
      return null;
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == double.class) {
      return 0.0;
    }
    if (type == float.class) {
      return 0.0f;
    }
    if (type == char.class) {
      return '\0';
    }
    if (type == byte.class) {
      return (byte) 0;
    }
    if (type == short.class) {
      return (short) 0;
    }
    return 0;
  }
}
