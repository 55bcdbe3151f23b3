package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.tenant.TenantConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A turn's steps read their tenant's configuration from one ask, made as the turn starts. */
class TenantPoliciesTest {

  @Test
  void theTurnsTenantIsAskedOnceAndAtOnceAndOtherTenantsEachTime() {
    List<String> asked = new ArrayList<>();
    TenantConfig clinic = TenantConfig.NO_CHANGE.overlay(new TenantConfig("Aria", null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null));
    TenantPolicies policies = tenantId -> {
      asked.add(tenantId);
      return CompletableFuture.completedFuture(tenantId.equals("clinic") ? clinic : TenantConfig.NO_CHANGE);
    };

    TenantPolicies once = TenantPolicies.once(policies, "clinic");

    assertThat(asked).as("asked as the turn starts").containsExactly("clinic");
    assertThat(once.config("clinic").toCompletableFuture().join()).isEqualTo(clinic);
    assertThat(once.config("clinic").toCompletableFuture().join()).isEqualTo(clinic);
    assertThat(once.config("other").toCompletableFuture().join()).isEqualTo(TenantConfig.NO_CHANGE);
    assertThat(asked).containsExactly("clinic", "other");
  }
}
