package dev.colloquy.engine;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.session.JournalPurger;
import dev.colloquy.engine.turn.RunningTurns;

/** What the engine's actors need from the outside world; the app decides which implementations run. */
public record EngineServices(
    SessionSettings session,
    LlmSettings llm,
    ModelCatalog models,
    KnowledgeBase knowledge,
    JournalPurger purger,
    RunningTurns turns) {

  /** Services whose node never drains: each call gets a registry of its own. */
  public EngineServices(
      SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge, JournalPurger purger) {
    this(session, llm, models, knowledge, purger, new RunningTurns());
  }
}
