package dev.colloquy.engine.tool;

import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.tenant.TenantConfig;

/**
 * Whose turn a tool call serves: every tool scopes what it reads and writes by the session's tenant
 * and user, never by anything the model wrote. {@code userId} is null in a session of the whole
 * tenant; {@code config} is the tenant's configuration as the turn read it.
 */
public record ToolContext(String tenantId, String userId, String sessionId, String turnId, Intent intent,
    TenantConfig config) {

  public boolean hasUser() {
    return userId != null;
  }
}
