package dev.colloquy.engine.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.model.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@code get_user_context} (seed 002): the plan, usage and preferences the tenant set for the session's user. */
final class UserContextTool implements Tool {

  static final String NAME = "get_user_context";

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Get the user's plan, usage and preferences as the business keeps them, when the answer depends on them.",
      ToolJson.object().put("type", "object").put("additionalProperties", false)
          .<ObjectNode>set("properties", ToolJson.object()));

  private final AgentServices agent;

  UserContextTool(AgentServices agent) {
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
    return CompletableFuture.supplyAsync(() -> ToolJson.write(
        agent.memories().context(context.tenantId(), context.userId())
            .map(user -> {
              ObjectNode known = ToolJson.object().put("known", true).put("plan", user.plan());
              known.set("usage", user.usage());
              known.set("preferences", user.preferences());
              return known;
            })
            .orElseGet(() -> ToolJson.object().put("known", false))), agent.blocking());
  }
}
