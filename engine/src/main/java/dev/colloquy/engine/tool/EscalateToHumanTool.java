package dev.colloquy.engine.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.model.ToolSpec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code escalate_to_human} (seed 004 §8.3): the model hands the conversation to a human. The call
 * only answers; its successful result is what the turn acts on: the turn escalates its session with
 * reason {@code agent_requested} (journaled with the turn, so the webhook leaves through the outbox
 * as for every escalation) and the model is asked once more, without tools, for its hand-off
 * message. Offered for domain queries of a tenant with an escalation webhook: without one there is
 * no human to hand the conversation to.
 */
public final class EscalateToHumanTool implements Tool {

  public static final String NAME = "escalate_to_human";

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Hand the conversation to a human agent when the knowledge base does not answer the question confidently "
          + "or the user asks for a person. Afterwards tell the user a human will take over.",
      ToolJson.stringsSchema("reason", "Why a human should take over, in one sentence"));

  @Override
  public ToolSpec spec() {
    return SPEC;
  }

  @Override
  public boolean offeredIn(ToolContext context) {
    return context.intent() == Intent.DOMAIN_QUERY && context.config() != null && context.config().hasWebhook();
  }

  @Override
  public CompletionStage<String> call(ToolContext context, JsonNode arguments) {
    ToolJson.text(arguments, "reason");
    return CompletableFuture.completedFuture(ToolJson.write(ToolJson.object().put("escalated", true)
        .put("message", "A human agent will take over this conversation; tell the user so.")));
  }
}
