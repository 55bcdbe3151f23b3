package dev.colloquy.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.http.Json;
import dev.colloquy.persistence.tenant.KeyKind;

/** The JSON lines of {@code colloquy tenants}, the same from the data directory and from a server. */
final class TenantLines {

  private TenantLines() {}

  static ObjectNode created(String tenantId, String name, String apiKey) {
    return Json.MAPPER.createObjectNode().put("tenant_id", tenantId).put("name", name).put("api_key", apiKey);
  }

  static ObjectNode tenant(String tenantId, String name, String createdAt) {
    return Json.MAPPER.createObjectNode().put("tenant_id", tenantId).put("name", name).put("created_at", createdAt);
  }

  static ObjectNode key(String tenantId, String keyId, String apiKey) {
    return Json.MAPPER.createObjectNode().put("tenant_id", tenantId).put("key_id", keyId).put("api_key", apiKey);
  }

  /** A secret key's line as above; a public key's also says {@code "kind":"public"}. */
  static ObjectNode key(String tenantId, String keyId, String apiKey, KeyKind kind) {
    ObjectNode line = key(tenantId, keyId, apiKey);
    return kind == KeyKind.PUBLIC ? line.put("kind", kind.id()) : line;
  }

  static ObjectNode revoked(String keyId) {
    return Json.MAPPER.createObjectNode().put("key_id", keyId).put("revoked", true);
  }

  static IllegalArgumentException noTenant(String tenant) {
    return new IllegalArgumentException("no tenant with id or name '" + tenant + "'");
  }

  static IllegalArgumentException noKey(String keyId) {
    return new IllegalArgumentException("no active key with id '" + keyId + "'");
  }
}
