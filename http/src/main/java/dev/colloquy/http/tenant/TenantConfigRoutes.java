package dev.colloquy.http.tenant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.tenant.ConfigProblem;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantConfiguration;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.Errors;
import dev.colloquy.http.Json;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

/** {@code GET /v1/config} and {@code PUT /v1/config}: the caller's tenant configuration. */
public final class TenantConfigRoutes extends AllDirectives {

  static final String INVALID_CONFIG = "INVALID_CONFIG";

  private final TenantConfigs configs;

  public TenantConfigRoutes(TenantConfigs configs) {
    this.configs = configs;
  }

  /** The routes for {@code tenantId}, the tenant of the request's credential. */
  public Route route(String tenantId, String traceId) {
    return path(segment("v1").slash("config"), () -> concat(
        get(() -> onSuccess(configs.current(tenantId), current -> json(StatusCodes.OK, ConfigJson.of(current)))),
        put(() -> entity(Unmarshaller.entityToString(), body -> update(tenantId, body, traceId)))));
  }

  private Route update(String tenantId, String body, String traceId) {
    TenantConfig change;
    try {
      change = ConfigJson.change(body);
    } catch (ConfigJson.Unreadable unreadable) {
      return invalid(List.of(unreadable.problem), traceId);
    } catch (JsonProcessingException e) {
      throw Json.unreadable(e, ErrorCode.MALFORMED_JSON);
    }
    if (change == null) {
      return complete(Errors.response(StatusCodes.BAD_REQUEST, "MALFORMED_JSON",
          "The request body must be a JSON object", traceId));
    }
    // "updated": true is the Support agent contract's whole answer to a PUT (seed 004 §5.5); the config follows it.
    return onSuccess(update(tenantId, change), reply -> switch (reply) {
      case TenantConfiguration.Current current -> json(StatusCodes.OK, ConfigJson.of(current).put("updated", true));
      case TenantConfiguration.Invalid invalid -> invalid(invalid.problems(), traceId);
      case TenantConfiguration.WebhookSecret unexpected -> throw new IllegalStateException("unexpected reply");
    });
  }

  private CompletionStage<TenantConfiguration.Reply> update(String tenantId, TenantConfig change) {
    return configs.update(tenantId, change);
  }

  private Route invalid(List<ConfigProblem> problems, String traceId) {
    return json(StatusCodes.UNPROCESSABLE_ENTITY, ConfigJson.problems(problems, traceId));
  }

  private Route json(StatusCode status, JsonNode body) {
    return complete(HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString())));
  }
}
