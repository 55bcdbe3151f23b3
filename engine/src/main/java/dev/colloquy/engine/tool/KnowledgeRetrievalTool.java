package dev.colloquy.engine.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.knowledge.Passage;
import dev.colloquy.engine.model.ToolSpec;
import java.util.concurrent.CompletionStage;

/**
 * {@code knowledge_retrieval} (seed 004 §8.3): the tenant's hybrid search for a query the model
 * words itself, with the passages' sources and the retrieval's confidence. Offered for domain
 * queries only; the search is the session's tenant's, whatever the model asks.
 */
final class KnowledgeRetrievalTool implements Tool {

  static final String NAME = "knowledge_retrieval";

  private static final ToolSpec SPEC = new ToolSpec(NAME,
      "Search the knowledge base of the business for passages that answer a question. Returns the passages "
          + "with their document and section, and a confidence between 0 and 1 that they answer it.",
      ToolJson.stringsSchema("query", "What to search for, as a question or keywords"));

  private final KnowledgeBase knowledge;
  private final int limit;

  KnowledgeRetrievalTool(KnowledgeBase knowledge, int limit) {
    this.knowledge = knowledge;
    this.limit = limit;
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
    return knowledge.search(context.tenantId(), query, limit).thenApply(found -> {
      ObjectNode result = ToolJson.object().put("confidence", found.confidence());
      ArrayNode passages = result.putArray("passages");
      for (Passage passage : found.passages()) {
        ObjectNode item = passages.addObject().put("document", passage.source());
        if (passage.section() != null && !passage.section().isBlank()) {
          item.put("section", passage.section());
        }
        item.put("score", passage.score()).put("text", passage.text());
      }
      return ToolJson.write(result);
    });
  }
}
