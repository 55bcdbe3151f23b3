package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.persistence.Database;
import dev.colloquy.persistence.tenant.NewTenant;
import dev.colloquy.persistence.tenant.KeyKind;
import dev.colloquy.persistence.tenant.Tenant;
import dev.colloquy.persistence.tenant.TenantStore;
import java.util.List;

/** Tenants and keys in the data directory's database, with no server running on it. */
final class LocalTenantAdmin implements TenantAdmin {

  private final Database database;
  private final TenantStore tenants;

  LocalTenantAdmin(Database database) {
    this.database = database;
    this.tenants = new TenantStore(database.dataSource());
  }

  @Override
  public ObjectNode create(String name) {
    NewTenant created = tenants.create(name);
    return TenantLines.created(created.tenant().tenantId(), created.tenant().name(), created.key().apiKey());
  }

  @Override
  public List<ObjectNode> list() {
    return tenants.list().stream()
        .map(tenant -> TenantLines.tenant(tenant.tenantId(), tenant.name(), tenant.createdAt().toString()))
        .toList();
  }

  @Override
  public ObjectNode issueKey(String tenant, KeyKind kind) {
    String tenantId = tenants.find(tenant).map(Tenant::tenantId).orElseThrow(() -> TenantLines.noTenant(tenant));
    return tenants.issueKey(tenantId, kind)
        .map(key -> TenantLines.key(key.tenantId(), key.keyId(), key.apiKey(), key.kind()))
        .orElseThrow(() -> TenantLines.noTenant(tenant));
  }

  @Override
  public ObjectNode revoke(String keyId) {
    if (!tenants.revoke(keyId)) {
      throw TenantLines.noKey(keyId);
    }
    return TenantLines.revoked(keyId);
  }

  @Override
  public void close() {
    database.close();
  }
}
