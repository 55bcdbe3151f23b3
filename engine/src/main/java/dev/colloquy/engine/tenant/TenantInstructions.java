package dev.colloquy.engine.tenant;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a tenant tells its models in the system message: its persona and system prompt, from its
 * configuration (set by the tenant's operator). Never anything a client sends with a session or a
 * message: that is data, not instructions (see the turn's prompt).
 */
public interface TenantInstructions {

  /** No tenant has instructions of its own. */
  TenantInstructions NONE = tenantId -> CompletableFuture.completedFuture(Optional.empty());

  CompletionStage<Optional<String>> of(String tenantId);

  /** The instructions a configuration gives: who the assistant is, then the tenant's system prompt. */
  static Optional<String> from(TenantConfig config) {
    List<String> parts = new ArrayList<>();
    if (present(config.personaName())) {
      parts.add("You are " + config.personaName().strip() + ".");
    }
    if (present(config.personaDescription())) {
      parts.add(config.personaDescription().strip());
    }
    if (present(config.systemPrompt())) {
      parts.add(config.systemPrompt().strip());
    }
    return parts.isEmpty() ? Optional.empty() : Optional.of(String.join("\n\n", parts));
  }

  private static boolean present(String text) {
    return text != null && !text.isBlank();
  }
}
