package dev.colloquy.engine.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.agent.Memory;
import dev.colloquy.engine.model.ToolSpec;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@code store_memory} (seed 002): keeps a fact about the session's user, when the user asks to be remembered. */
final class StoreMemoryTool implements Tool {

  static final String NAME = "store_memory";

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Remember a fact about the user for later conversations, e.g. when the user says \"remember that ...\". "
          + "Store one short self-contained fact per call.",
      ToolJson.stringsSchema("content", "The fact to remember, as a short sentence"));

  private final AgentServices agent;

  StoreMemoryTool(AgentServices agent) {
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
    String content = ToolJson.text(arguments, "content");
    return CompletableFuture.supplyAsync(() -> {
      List<Memory> stored = agent.memories().remember(context.tenantId(), context.userId(), List.of(content),
          "tool", context.sessionId());
      // A fact the user already has is not stored twice; the model learns it was known.
      return ToolJson.write(stored.isEmpty() ? ToolJson.object().put("stored", false).put("reason", "already known")
          : ToolJson.object().put("stored", true).put("memory_id", stored.getFirst().memoryId()));
    }, agent.blocking());
  }
}
