package dev.colloquy.engine.tenant;

import java.time.YearMonth;
import java.util.concurrent.CompletionStage;

/** What the quotas are measured against; the read side knows both, the HTTP limits ask. */
public interface TenantUsage {

  CompletionStage<Long> openSessions(String tenantId);

  /** Model tokens (prompt and completion) the tenant's turns used in {@code month} (UTC). */
  CompletionStage<Long> tokensUsed(String tenantId, YearMonth month);
}
