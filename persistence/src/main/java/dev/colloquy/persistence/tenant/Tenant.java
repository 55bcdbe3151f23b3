package dev.colloquy.persistence.tenant;

import java.time.Instant;

/** A tenant: its stable id (what every store is scoped by) and its unique, human-chosen name. */
public record Tenant(String tenantId, String name, Instant createdAt) {}
