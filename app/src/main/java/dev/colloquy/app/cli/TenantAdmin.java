package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.persistence.tenant.KeyKind;
import java.util.List;

/**
 * What {@code colloquy tenants} does, on the data directory or through a running server's admin
 * API. Each answer is the JSON line the command prints.
 */
interface TenantAdmin extends AutoCloseable {

  /** {@code {"tenant_id","name","api_key"}}: the tenant with its first key, shown only now. */
  ObjectNode create(String name);

  /** One {@code {"tenant_id","name","created_at"}} per tenant, oldest first. */
  List<ObjectNode> list();

  /**
   * {@code {"tenant_id","key_id","api_key"}}: another key of the tenant named by id or name; a public
   * key (for the widget) also says {@code "kind":"public"}.
   */
  ObjectNode issueKey(String tenant, KeyKind kind);

  /** {@code {"key_id","revoked":true}}; fails when there is no such active key. */
  ObjectNode revoke(String keyId);

  @Override
  void close();
}
