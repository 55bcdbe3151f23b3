package dev.colloquy.engine.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.model.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@code recall_memory} (seed 002): the session's user's memories most similar to a query, and only theirs. */
final class RecallMemoryTool implements Tool {

  static final String NAME = "recall_memory";

  /** As many as the prompt's recall, when that is not turned off. */
  private static final int DEFAULT_LIMIT = 5;

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Look up what you remember about the user from earlier conversations, by similarity to a query.",
      ToolJson.stringsSchema("query", "What to look for among the memories"));

  private final AgentServices agent;

  RecallMemoryTool(AgentServices agent) {
    this.agent = agent;
  }

  @Override
  public ToolSpec spec() {
    return SPEC;
  }

  @Override
  public boolean offeredIn(ToolContext context) {
    return context.hasUser();
  }

  @Override
  public CompletionStage<String> call(ToolContext context, JsonNode arguments) {
    String query = ToolJson.text(arguments, "query");
    int configured = agent.settings().memory().recall();
    int limit = configured > 0 ? configured : DEFAULT_LIMIT;
    return CompletableFuture.supplyAsync(() -> {
      ObjectNode result = ToolJson.object();
      ArrayNode memories = result.putArray("memories");
      for (Memory memory : agent.memories().recall(context.tenantId(), context.userId(), query, limit)) {
        memories.addObject().put("content", memory.content()).put("created_at", memory.createdAt().toString());
      }
      return ToolJson.write(result);
    }, agent.blocking());
  }
}
