package dev.colloquy.engine.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.GuardedHttp;
import dev.colloquy.engine.agent.StandardWebhooks;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.model.ToolSpec;
import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code structured_data_lookup} (seed 004 §8.3): the model's query goes to the tenant's own data
 * webhook ({@code data_webhook_url} of its configuration), whose JSON answer is the result. The POST
 * is {@code {"query", "session_id", "turn_id", "user_id"}}, signed with the tenant's webhook secret
 * in the Standard Webhooks headers as the escalation webhook is, after the egress guard let the URL
 * through; the answer is read within the data lookup's timeout and size cap. A tenant without a
 * data webhook gets {@code not_configured}. Offered for domain queries.
 */
final class StructuredDataLookupTool implements Tool {

  static final String NAME = "structured_data_lookup";

  private static final String WHAT = "The data webhook";

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Look up the business's own records (orders, accounts, bookings, invoices, ...) for the user's question, "
          + "e.g. the status of an order by its number. Returns the records the business's systems answer, as JSON.",
      ToolJson.stringsSchema("query", "What to look up, with any identifiers the user gave (order number, email, ...)"));

  private final AgentServices agent;

  StructuredDataLookupTool(AgentServices agent) {
    this.agent = agent;
  }

  @Override
  public ToolSpec spec() {
    return SPEC;
  }

  @Override
  public boolean offeredIn(ToolContext context) {
    return context.intent() == Intent.DOMAIN_QUERY;
  }

  @Override
  public CompletionStage<String> call(ToolContext context, JsonNode arguments) {
    String query = ToolJson.text(arguments, "query");
    if (context.config() == null || !context.config().hasDataWebhook()) {
      return CompletableFuture.failedFuture(
          new ToolFailure("not_configured", "This business has configured no data source to look records up in"));
    }
    URI url = URI.create(context.config().dataWebhookUrl());
    ObjectNode request = ToolJson.object().put("query", query).put("session_id", context.sessionId())
        .put("turn_id", context.turnId());
    if (context.hasUser()) {
      request.put("user_id", context.userId());
    }
    String body = ToolJson.write(request);
    AgentSettings.DataLookup settings = agent.settings().tools().dataLookup();
    return agent.secrets().webhookSecret(context.tenantId())
        .thenCompose(secret -> agent.outbound().postJson(url, signed(secret, body), body, settings.timeout(),
            settings.maxResponseBytes()))
        .handle((answer, failure) -> {
          if (failure != null) {
            throw OutboundFailures.of(failure, WHAT, settings.timeout());
          }
          return result(answer);
        });
  }

  private static Map<String, String> signed(Optional<String> secret, String body) {
    Map<String, String> headers = new LinkedHashMap<>();
    String id = "msg_" + UUID.randomUUID();
    long timestamp = Instant.now().getEpochSecond();
    headers.put("webhook-id", id);
    headers.put("webhook-timestamp", Long.toString(timestamp));
    secret.ifPresent(key -> headers.put("webhook-signature", StandardWebhooks.signature(key, id, timestamp, body)));
    return headers;
  }

  private static String result(GuardedHttp.Answer answer) {
    if (!answer.ok()) {
      throw OutboundFailures.status(answer.status(), WHAT);
    }
    try {
      JsonNode data = ToolJson.MAPPER.readTree(answer.body());
      if (data == null || data.isMissingNode()) {
        throw new ToolFailure("invalid_response", WHAT + " answered no JSON");
      }
      return ToolJson.write(ToolJson.object().set("data", data));
    } catch (JsonProcessingException e) {
      throw new ToolFailure("invalid_response", WHAT + "'s answer is not JSON");
    }
  }
}
