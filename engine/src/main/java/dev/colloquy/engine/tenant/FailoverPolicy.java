package dev.colloquy.engine.tenant;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What becomes of a turn whose node crashed: it ends as failed with INTERRUPTED (its partial text
 * kept), or, when its tenant allows it, another node runs it again and its stream says so.
 */
public interface FailoverPolicy {

  CompletionStage<Boolean> continuesTurns(String tenantId);

  /** Every tenant's interrupted turns end as INTERRUPTED. */
  FailoverPolicy INTERRUPT = tenantId -> CompletableFuture.completedFuture(false);

  /** Every tenant's interrupted turns run again. */
  FailoverPolicy CONTINUE = tenantId -> CompletableFuture.completedFuture(true);
}
