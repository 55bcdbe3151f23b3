package dev.colloquy.http.tenant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.tenant.ConfigProblem;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfiguration;
import dev.colloquy.http.Json;
import java.util.List;

/**
 * The JSON of {@code /v1/config}: the configuration's fields by their snake_case names, its version
 * and when it changed. Reading is strict: an unknown field or a value of the wrong type is a problem
 * named by its field, never silently dropped or coerced.
 */
final class ConfigJson {

  private static final ObjectMapper STRICT = JsonMapper.builder()
      .propertyNamingStrategy(Json.MAPPER.getPropertyNamingStrategy())
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
      .build();

  /** A request body that could not become a change. */
  static final class Unreadable extends Exception {
    final ConfigProblem problem;

    Unreadable(ConfigProblem problem) {
      super(problem.problem(), null, false, false);
      this.problem = problem;
    }
  }

  private ConfigJson() {}

  /** The change a PUT body asks for; null means the body is not a JSON object at all. */
  static TenantConfig change(String body) throws Unreadable, JsonProcessingException {
    JsonNode json = Json.MAPPER.readTree(body.isBlank() ? "{}" : body);
    if (json == null || !json.isObject()) {
      return null;
    }
    try {
      return STRICT.treeToValue(json, TenantConfig.class);
    } catch (JsonMappingException e) {
      String field = e.getPath().isEmpty() || e.getPath().get(0).getFieldName() == null
          ? "body" : e.getPath().get(0).getFieldName();
      String problem = e.getPath().isEmpty() ? "is not a configuration"
          : json.has(field) ? "has a value of the wrong type" : "is not a configuration field";
      throw new Unreadable(new ConfigProblem(field, problem));
    }
  }

  static ObjectNode of(TenantConfiguration.Current current) {
    TenantConfig config = current.config();
    ObjectNode json = Json.MAPPER.valueToTree(config);
    if (!config.hasWebhook()) {
      json.putNull("escalation_webhook_url");
    }
    if (!config.hasDataWebhook()) {
      json.putNull("data_webhook_url");
    }
    json.put("version", current.version());
    json.set("updated_at", current.updatedAt() == null ? json.nullNode() : Json.MAPPER.valueToTree(current.updatedAt()));
    if (current.newWebhookSecret() != null) {
      json.put("webhook_secret", current.newWebhookSecret());
    }
    return json;
  }

  static ObjectNode problems(List<ConfigProblem> problems, String traceId) {
    ConfigProblem first = problems.get(0);
    ObjectNode body = Json.MAPPER.createObjectNode();
    ObjectNode error = body.putObject("error");
    error.put("code", TenantConfigRoutes.INVALID_CONFIG);
    error.put("message", "The field " + first.field() + " " + first.problem()
        + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more problems in details)" : ""));
    error.put("trace_id", traceId);
    error.put("field", first.field());
    var details = error.putArray("details");
    problems.forEach(p -> details.addObject().put("field", p.field()).put("problem", p.problem()));
    return body;
  }
}
