package dev.colloquy.engine.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.engine.model.ToolSpec;
import java.util.concurrent.CompletionStage;

/**
 * A tool the model may call while it answers (OpenAI's function tools). A call never blocks the
 * caller: blocking work runs on an executor of its own. What it completes with is the content of the
 * {@code tool} message the model is sent back; a call that completes with a {@link ToolFailure} sends
 * the model that failure's message instead, and any other exception a generic one.
 */
public interface Tool {

  /** The name, description and JSON Schema of arguments the model is shown. */
  ToolSpec spec();

  default String name() {
    return spec().name();
  }

  /** Whether the model is offered this tool in the turn of {@code context}. */
  boolean offeredIn(ToolContext context);

  /** Runs one call with the model's {@code arguments} (a JSON object). */
  CompletionStage<String> call(ToolContext context, JsonNode arguments);
}
