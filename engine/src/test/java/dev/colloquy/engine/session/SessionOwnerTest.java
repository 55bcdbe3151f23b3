package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SessionOwnerTest {

  private static final SessionOwner ALICES = new SessionOwner("acme", "alice");
  private static final SessionOwner TENANT_WIDE = new SessionOwner("acme", null);

  @Test
  void theTenantWithoutAUserReachesEverySessionOfTheTenant() {
    assertThat(ALICES.reachableBy("acme", null)).isTrue();
    assertThat(TENANT_WIDE.reachableBy("acme", null)).isTrue();
  }

  @Test
  void aUserReachesOnlyItsOwnSessions() {
    assertThat(ALICES.reachableBy("acme", "alice")).isTrue();
    assertThat(ALICES.reachableBy("acme", "bob")).isFalse();
    assertThat(TENANT_WIDE.reachableBy("acme", "alice")).isFalse();
  }

  @Test
  void anotherTenantReachesNothingEvenWithTheSameUserId() {
    assertThat(ALICES.reachableBy("globex", null)).isFalse();
    assertThat(ALICES.reachableBy("globex", "alice")).isFalse();
  }
}
