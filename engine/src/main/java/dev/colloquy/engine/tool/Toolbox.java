package dev.colloquy.engine.tool;

import dev.colloquy.engine.EngineServices;
import dev.colloquy.engine.model.ToolSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The tools of a node, by name, and which of them a turn's model is offered. */
public final class Toolbox {

  private final Map<String, Tool> tools = new LinkedHashMap<>();

  public Toolbox(List<Tool> tools) {
    tools.forEach(tool -> this.tools.put(tool.name(), tool));
  }

  /**
   * The tools every node has: knowledge retrieval over its knowledge base, the tenants' data
   * lookups, escalation, the users' memory, and web search when the operator configured it.
   */
  public static Toolbox of(EngineServices services) {
    return new Toolbox(List.of(
        new KnowledgeRetrievalTool(services.knowledge(), services.session().retrievalLimit()),
        new StructuredDataLookupTool(services.agent()),
        new EscalateToHumanTool(),
        new StoreMemoryTool(services.agent()),
        new RecallMemoryTool(services.agent()),
        new UserContextTool(services.agent()),
        new WebSearchTool(services.agent().settings().tools().webSearch(), services.agent().outbound())));
  }

  /** The specs of the tools offered in the turn of {@code context}, in a stable order; none when tools are off. */
  public List<ToolSpec> offered(ToolContext context) {
    return tools.values().stream().filter(tool -> tool.offeredIn(context)).map(Tool::spec).toList();
  }

  /** The tool of that name: the model may name one it was never offered, or one that does not exist. */
  public Optional<Tool> find(String name, ToolContext context) {
    return Optional.ofNullable(tools.get(name)).filter(tool -> tool.offeredIn(context));
  }
}
