package dev.colloquy.engine.agent;

import dev.colloquy.engine.tenant.TenantConfig;
import java.util.List;

/** The texts of the agent's own answers, adapted to the tenant's persona and topics (seed 004 §8.2). */
public final class AgentReplies {

  private AgentReplies() {}

  /** Seed 004 §8.2's redirect: "I can only assist with {allowed_topics} for {company_name}. …" */
  public static String outOfScope(TenantConfig config) {
    List<String> topics = config.allowedTopics() == null ? List.of() : config.allowedTopics();
    String company = blank(config.companyName()) ? "this service" : config.companyName().strip();
    String scope = topics.isEmpty() ? "questions about " + company : String.join(", ", topics) + " for " + company;
    return "I can only assist with " + scope + ". Is there something I can help you with in those areas?";
  }

  /** What the user reads when the conversation goes to a human. */
  public static String escalated(TenantConfig config) {
    return introduction(config) + "I'm connecting you to a human agent who will continue this conversation here. "
        + "They can see everything we've discussed.";
  }

  /** The receipt of a message sent while a human has the conversation. */
  public static String forwarded() {
    return "Your message has been passed to the human agent handling this conversation.";
  }

  private static String introduction(TenantConfig config) {
    return blank(config.personaName()) ? "" : "This is " + config.personaName().strip() + ". ";
  }

  private static boolean blank(String text) {
    return text == null || text.isBlank();
  }
}
