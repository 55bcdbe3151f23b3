package dev.colloquy.persistence.tenant;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Tenants and API keys in PostgreSQL. Every node reads the same tables, so a revocation is seen by
 * all of them (within their cache's lifetime). Every method blocks on JDBC.
 */
public final class TenantStore implements ApiKeyStore {

  /** SQLSTATE of a unique constraint violation. */
  private static final String UNIQUE_VIOLATION = "23505";

  private final DataSource dataSource;

  public TenantStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Creates the tenant with one key; throws {@link DuplicateTenantException} when the name is taken. */
  public NewTenant create(String name) {
    return create(UUID.randomUUID().toString(), name);
  }

  /** As {@link #create(String)}, with a chosen id (the development tenant takes the id of the data from before tenancy). */
  public NewTenant create(String tenantId, String name) {
    Tenant tenant = new Tenant(tenantId, name, now());
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement insert = connection.prepareStatement(
          "INSERT INTO tenants (tenant_id, name, created_at) VALUES (?, ?, ?)")) {
        insert.setString(1, tenant.tenantId());
        insert.setString(2, name);
        insert.setObject(3, tenant.createdAt().atOffset(ZoneOffset.UTC));
        insert.executeUpdate();
        IssuedKey key = insertKey(connection, tenant.tenantId(), KeyKind.SECRET);
        connection.commit();
        return new NewTenant(tenant, key);
      } catch (SQLException e) {
        connection.rollback();
        if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw new DuplicateTenantException(name);
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create the tenant", e);
    }
  }

  public List<Tenant> list() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT tenant_id, name, created_at FROM tenants ORDER BY created_at, name");
        ResultSet rs = query.executeQuery()) {
      List<Tenant> tenants = new ArrayList<>();
      while (rs.next()) {
        tenants.add(tenant(rs));
      }
      return tenants;
    } catch (SQLException e) {
      throw new IllegalStateException("Could not list the tenants", e);
    }
  }

  /** The tenant with this id, else the one with this name. */
  public Optional<Tenant> find(String idOrName) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT tenant_id, name, created_at FROM tenants WHERE tenant_id = ? OR name = ? "
                + "ORDER BY (tenant_id = ?) DESC LIMIT 1")) {
      query.setString(1, idOrName);
      query.setString(2, idOrName);
      query.setString(3, idOrName);
      try (ResultSet rs = query.executeQuery()) {
        return rs.next() ? Optional.of(tenant(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read the tenant", e);
    }
  }

  public boolean isEmpty() {
    return list().isEmpty();
  }

  /** Another secret key for the tenant; empty when there is no such tenant. */
  public Optional<IssuedKey> issueKey(String tenantId) {
    return issueKey(tenantId, KeyKind.SECRET);
  }

  /** Another key of this kind for the tenant; empty when there is no such tenant. */
  public Optional<IssuedKey> issueKey(String tenantId, KeyKind kind) {
    if (find(tenantId).filter(t -> t.tenantId().equals(tenantId)).isEmpty()) {
      return Optional.empty();
    }
    try (Connection connection = dataSource.getConnection()) {
      return Optional.of(insertKey(connection, tenantId, kind));
    } catch (SQLException e) {
      throw new IllegalStateException("Could not issue a key", e);
    }
  }

  /** Revokes the key; false when there is no such key or it was revoked already. */
  public boolean revoke(String keyId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement update = connection.prepareStatement(
            "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL")) {
      update.setObject(1, now().atOffset(ZoneOffset.UTC));
      update.setString(2, keyId);
      return update.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new IllegalStateException("Could not revoke the key", e);
    }
  }

  @Override
  public Optional<StoredKey> findKey(String keyId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT key_id, tenant_id, secret_sha256, revoked_at, kind FROM api_keys WHERE key_id = ?")) {
      query.setString(1, keyId);
      try (ResultSet rs = query.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(new StoredKey(rs.getString("key_id"), rs.getString("tenant_id"),
            rs.getBytes("secret_sha256"), rs.getObject("revoked_at") != null, KeyKind.fromId(rs.getString("kind"))));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read the key", e);
    }
  }

  @Override
  public void markUsed(String keyId, Instant at) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement update = connection.prepareStatement(
            "UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?)")) {
      OffsetDateTime time = at.atOffset(ZoneOffset.UTC);
      update.setObject(1, time);
      update.setString(2, keyId);
      update.setObject(3, time);
      update.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Could not record the key's use", e);
    }
  }

  /** When the key was last used, as far as the batched updates have recorded it. */
  public Optional<Instant> lastUsed(String keyId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement("SELECT last_used_at FROM api_keys WHERE key_id = ?")) {
      query.setString(1, keyId);
      try (ResultSet rs = query.executeQuery()) {
        return rs.next() ? Optional.ofNullable(rs.getObject(1, OffsetDateTime.class)).map(OffsetDateTime::toInstant)
            : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read the key", e);
    }
  }

  private static IssuedKey insertKey(Connection connection, String tenantId, KeyKind kind) throws SQLException {
    String keyId = ApiKeys.newKeyId();
    String secret = ApiKeys.newSecret();
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO api_keys (key_id, tenant_id, secret_sha256, created_at, kind) VALUES (?, ?, ?, ?, ?)")) {
      insert.setString(1, keyId);
      insert.setString(2, tenantId);
      insert.setBytes(3, ApiKeys.sha256(secret));
      insert.setObject(4, now().atOffset(ZoneOffset.UTC));
      insert.setString(5, kind.id());
      insert.executeUpdate();
    }
    return new IssuedKey(tenantId, keyId, ApiKeys.text(keyId, secret, kind), kind);
  }

  private static Tenant tenant(ResultSet rs) throws SQLException {
    return new Tenant(rs.getString("tenant_id"), rs.getString("name"),
        rs.getObject("created_at", OffsetDateTime.class).toInstant());
  }

  private static Instant now() {
    return Instant.now();
  }
}
