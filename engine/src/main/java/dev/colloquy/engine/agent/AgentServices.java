package dev.colloquy.engine.agent;

import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.tenant.TenantConfig;
import java.time.Duration;
import java.util.List;

/** What the agent's steps need besides the engine's services: the tenants' configurations and its settings. */
public record AgentServices(TenantPolicies policies, AgentSettings settings) {

  /** An agent that routes with the offline rules and follows {@code config} for every tenant. */
  public static AgentServices fixed(TenantConfig config) {
    return new AgentServices(TenantPolicies.fixed(config), new AgentSettings(false, Duration.ofSeconds(10), List.of(),
        new AgentSettings.Webhooks(3, Duration.ofSeconds(1), Duration.ofMinutes(5), Duration.ofSeconds(10),
            Duration.ofMillis(500))));
  }
}
