package dev.colloquy.engine.agent;

import dev.colloquy.config.AgentSettings;
import dev.colloquy.engine.tenant.TenantConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * What the agent's steps need besides the engine's services: the tenants' configurations, its
 * settings, the users' long-term memory, an executor for the blocking calls of that memory and of
 * language detection, the detection of a message's language, the secrets that sign the tenants'
 * webhooks, and the guarded HTTP client of the tools' outbound calls.
 */
public record AgentServices(TenantPolicies policies, AgentSettings settings, MemoryStore memories, Executor blocking,
    LanguageDetection language, TenantSecrets secrets, GuardedHttp outbound) {

  /** An agent whose outbound calls pass the egress guard of its settings, signed with {@code secrets}. */
  public AgentServices(TenantPolicies policies, AgentSettings settings, MemoryStore memories, Executor blocking,
      LanguageDetection language, TenantSecrets secrets) {
    this(policies, settings, memories, blocking, language, secrets,
        new GuardedHttp(new EgressGuard(settings.egressAllow()), blocking));
  }

  /** An agent whose outbound calls go unsigned. */
  public AgentServices(TenantPolicies policies, AgentSettings settings, MemoryStore memories, Executor blocking,
      LanguageDetection language) {
    this(policies, settings, memories, blocking, language, TenantSecrets.none());
  }

  /** An agent that detects no language: every message passes through as it is. */
  public AgentServices(TenantPolicies policies, AgentSettings settings, MemoryStore memories, Executor blocking) {
    this(policies, settings, memories, blocking, LanguageDetection.none());
  }

  /** The same agent following {@code others} for the tenants' configurations. */
  public AgentServices withPolicies(TenantPolicies others) {
    return new AgentServices(others, settings, memories, blocking, language, secrets, outbound);
  }

  /** An agent that routes with the offline rules, follows {@code config} for every tenant and remembers nothing. */
  public static AgentServices fixed(TenantConfig config) {
    return new AgentServices(TenantPolicies.fixed(config), new AgentSettings(false, Duration.ofSeconds(10), List.of(),
        new AgentSettings.Webhooks(3, Duration.ofSeconds(1), Duration.ofMinutes(5), Duration.ofSeconds(10),
            Duration.ofMillis(500)),
        new AgentSettings.Memory(5, AgentSettings.Extraction.OFFLINE)),
        MemoryStore.none(), Executors.newVirtualThreadPerTaskExecutor());
  }
}
