package dev.colloquy.engine.tool;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.agent.GuardedHttp;
import dev.colloquy.engine.model.ToolSpec;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * {@code web_search} (seed 000): a search of the web through a Tavily-compatible API the operator
 * configured ({@code colloquy.agent.tools.web-search}), for references outside the knowledge base.
 * The request is {@code {"api_key"?, "query", "max_results"}}; the model reads each result's title,
 * URL and content. Offered in every turn that is offered tools, and only while a URL is configured.
 */
final class WebSearchTool implements Tool {

  static final String NAME = "web_search";

  private static final String WHAT = "The web search";

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Search the web for facts and references that the knowledge base does not hold (history, places, "
          + "customs, public events, ...). Returns the best results with their title, URL and content.",
      ToolJson.stringsSchema("query", "What to search the web for"));

  private final AgentSettings.WebSearch settings;
  private final GuardedHttp outbound;

  WebSearchTool(AgentSettings.WebSearch settings, GuardedHttp outbound) {
    this.settings = settings;
    this.outbound = outbound;
  }

  @Override
  public ToolSpec spec() {
    return SPEC;
  }

  @Override
  public boolean offeredIn(ToolContext context) {
    return settings.enabled();
  }

  @Override
  public CompletionStage<String> call(ToolContext context, JsonNode arguments) {
    String query = ToolJson.text(arguments, "query");
    ObjectNode request = ToolJson.object();
    if (settings.apiKey() != null) {
      request.put("api_key", settings.apiKey());
    }
    request.put("query", query).put("max_results", settings.maxResults());
    return outbound.postJson(URI.create(settings.url()), Map.of(), ToolJson.write(request), settings.timeout(),
            settings.maxResponseBytes())
        .handle((answer, failure) -> {
          if (failure != null) {
            throw OutboundFailures.of(failure, WHAT, settings.timeout());
          }
          return results(answer);
        });
  }

  /** Only each result's title, URL and content reach the model: nothing else the API answers. */
  private static String results(GuardedHttp.Answer answer) {
    if (!answer.ok()) {
      throw OutboundFailures.status(answer.status(), WHAT);
    }
    JsonNode found;
    try {
      found = ToolJson.MAPPER.readTree(answer.body()).path("results");
    } catch (JsonProcessingException e) {
      throw new ToolFailure("invalid_response", WHAT + "'s answer is not JSON");
    }
    if (!found.isArray()) {
      throw new ToolFailure("invalid_response", WHAT + "'s answer has no results");
    }
    ObjectNode result = ToolJson.object();
    ArrayNode results = result.putArray("results");
    for (JsonNode item : found) {
      results.addObject().put("title", item.path("title").asText("")).put("url", item.path("url").asText(""))
          .put("content", item.path("content").asText(""));
    }
    return ToolJson.write(result);
  }
}
