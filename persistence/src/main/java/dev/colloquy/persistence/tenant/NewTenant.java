package dev.colloquy.persistence.tenant;

/** A tenant just created with its first key. */
public record NewTenant(Tenant tenant, IssuedKey key) {}
