package dev.colloquy.engine;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.observe.EngineMetrics;

/**
 * What the engine's actors need from the outside world; the app decides which implementations run.
 * {@code turns} are the turns running on this node. {@code logContent} is false in production: no message content may reach a log line.
 */
public record EngineServices(
    SessionSettings session,
    LlmSettings llm,
    ModelCatalog models,
    KnowledgeBase knowledge,
    JournalPurger purger,
    InFlight turns,
    EngineMetrics metrics,
    boolean logContent) {

  /** Services of a node that never drains (a registry of its own), no metrics, and content allowed in logs (development). */
  public EngineServices(
      SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge, JournalPurger purger) {
    this(session, llm, models, knowledge, purger, new InFlight(), EngineMetrics.NONE, true);
  }
}
