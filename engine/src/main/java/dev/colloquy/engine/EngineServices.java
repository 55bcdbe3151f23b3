package dev.colloquy.engine;

import dev.colloquy.config.LlmSettings;
import dev.colloquy.config.SessionSettings;
import dev.colloquy.engine.agent.AgentServices;
import dev.colloquy.engine.knowledge.KnowledgeBase;
import dev.colloquy.engine.model.ModelCatalog;
import dev.colloquy.engine.observe.EngineMetrics;
import dev.colloquy.engine.tenant.AnswerBudgets;
import dev.colloquy.engine.tenant.FailoverPolicy;
import dev.colloquy.engine.tenant.TenantConfig;
import dev.colloquy.engine.tenant.TenantInstructions;
import java.util.function.BooleanSupplier;

/**
 * What the engine's actors need from the outside world; the app decides which implementations run.
 * {@code turns} are the turns running on this node; {@code answerBudgets} gives the {@code max_tokens}
 * of each tenant's model calls and {@code instructions} what its system message says; {@code failover}
 * whether a turn a crashed node left running runs again; {@code journalReachable} whether the journal's
 * database answers now (a session writes no checkpoint while it does not, so that a write that cannot
 * succeed never holds up its commands). {@code logContent} is false in production: no message content
 * may reach a log line.
 * {@code agent} is what the agent's steps of a turn need (the tenants' configurations, its settings).
 * {@code checkpointWrites} bounds the checkpoints the node's sessions write at once.
 */
public record EngineServices(
    SessionSettings session,
    LlmSettings llm,
    ModelCatalog models,
    KnowledgeBase knowledge,
    InFlight turns,
    EngineMetrics metrics,
    boolean logContent,
    AnswerBudgets answerBudgets,
    TenantInstructions instructions,
    FailoverPolicy failover,
    BooleanSupplier journalReachable,
    AgentServices agent,
    CheckpointWrites checkpointWrites) {

  /** Services of one node, whose checkpoint writes are bounded as its session settings say. */
  public EngineServices(SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge,
      InFlight turns, EngineMetrics metrics, boolean logContent, AnswerBudgets answerBudgets,
      TenantInstructions instructions, FailoverPolicy failover, BooleanSupplier journalReachable,
      AgentServices agent) {
    this(session, llm, models, knowledge, turns, metrics, logContent, answerBudgets, instructions, failover,
        journalReachable, agent, new CheckpointWrites(session.checkpoint().maxWriting()));
  }

  /** The {@code max_tokens} of reference.conf, for services built without the tenants' configurations. */
  public static final int DEFAULT_MAX_TOKENS = 1024;

  /** Services whose agent follows the same unconfigured tenant (no webhook, no topics) everywhere. */
  public EngineServices(SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge,
      InFlight turns, EngineMetrics metrics, boolean logContent, AnswerBudgets answerBudgets,
      TenantInstructions instructions) {
    this(session, llm, models, knowledge, turns, metrics, logContent, answerBudgets, instructions,
        FailoverPolicy.INTERRUPT, () -> true);
  }

  /** Services whose agent follows the same unconfigured tenant, with their failover policy and journal probe. */
  public EngineServices(SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge,
      InFlight turns, EngineMetrics metrics, boolean logContent, AnswerBudgets answerBudgets,
      TenantInstructions instructions, FailoverPolicy failover, BooleanSupplier journalReachable) {
    this(session, llm, models, knowledge, turns, metrics, logContent, answerBudgets, instructions, failover,
        journalReachable, AgentServices.fixed(TenantConfig.NO_CHANGE));
  }

  /** Services with their agent, whose turns a crashed node left running end interrupted. */
  public EngineServices(SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge,
      InFlight turns, EngineMetrics metrics, boolean logContent, AnswerBudgets answerBudgets,
      TenantInstructions instructions, AgentServices agent) {
    this(session, llm, models, knowledge, turns, metrics, logContent, answerBudgets, instructions,
        FailoverPolicy.INTERRUPT, () -> true, agent);
  }

  /** Services of a node that never drains (a registry of its own), no metrics, and content allowed in logs (development). */
  public EngineServices(
      SessionSettings session, LlmSettings llm, ModelCatalog models, KnowledgeBase knowledge) {
    this(session, llm, models, knowledge, new InFlight(), EngineMetrics.NONE, true,
        AnswerBudgets.fixed(DEFAULT_MAX_TOKENS), TenantInstructions.NONE);
  }
}
