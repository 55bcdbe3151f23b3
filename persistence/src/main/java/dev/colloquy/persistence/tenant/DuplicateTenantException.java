package dev.colloquy.persistence.tenant;

/** A tenant name is taken: names are unique so operators and JWT default tenants can name them. */
public final class DuplicateTenantException extends RuntimeException {

  public DuplicateTenantException(String name) {
    super("A tenant named '" + name + "' exists", null, false, false);
  }
}
