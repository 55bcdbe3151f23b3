package dev.colloquy.engine.session;

/**
 * Who a session belongs to: a tenant and, within it, one user, or no user when the session was
 * opened for the whole tenant (by a tenant key without a user, or journaled before sessions had users).
 */
public record SessionOwner(String tenantId, String userId) {

  /**
   * Whether a caller of {@code callerTenantId} acting for {@code callerUserId} may reach the
   * session. A caller without a user acts for the whole tenant and reaches all its sessions; a user
   * reaches only its own, not even the tenant-wide ones.
   */
  public boolean reachableBy(String callerTenantId, String callerUserId) {
    return tenantId.equals(callerTenantId) && (callerUserId == null || callerUserId.equals(userId));
  }
}
