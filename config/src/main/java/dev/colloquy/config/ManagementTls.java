package dev.colloquy.config;

/**
 * HTTPS on the management port ({@code colloquy.cluster.management.tls}): the node shows the
 * certificate in its key store, and Cluster Bootstrap's probes of the other nodes' management
 * endpoints check theirs against the trust store (which is why the trust store is always needed).
 * With {@code requireClientCertificate} every client must show a certificate the trust store vouches
 * for (mutual TLS); without, anyone may connect over TLS (what Kubernetes' httpGet probes can do).
 *
 * <p>Every store setting left empty is the same setting of {@code colloquy.cluster.tls}: one
 * certificate per node serves both the nodes' traffic and the management port. The passwords never
 * show in toString.
 */
public record ManagementTls(boolean enabled, String keyStore, String keyStorePassword, String keyPassword,
    String trustStore, String trustStorePassword, boolean requireClientCertificate) {

  static final String PREFIX = "colloquy.cluster.management.tls.";
  private static final String ARTERY = "colloquy.cluster.tls.";
  private static final ManagementTls OFF = new ManagementTls(false, "", "", "", "", "", false);

  @Override
  public String toString() {
    return enabled ? "ManagementTls[key-store=" + keyStore + ", trust-store=" + trustStore
        + ", require-client-certificate=" + requireClientCertificate + "]" : "ManagementTls[off]";
  }

  /** When on, both stores must open with their passwords and the key store must hold a private key. */
  static ManagementTls create(SettingsReader reader) {
    if (!reader.bool(PREFIX + "enabled")) {
      return OFF;
    }
    Setting keyStore = setting(reader, "key-store");
    Setting keyStorePassword = setting(reader, "key-store-password");
    Setting keyPassword = setting(reader, "key-password");
    Setting trustStore = setting(reader, "trust-store");
    Setting trustStorePassword = setting(reader, "trust-store-password");
    KeyStoreFiles.requirePrivateKey(reader, keyStore.key(), KeyStoreFiles.open(reader, keyStore.key(),
        keyStore.value(), keyStorePassword.key(), keyStorePassword.value(), PREFIX + "enabled"));
    KeyStoreFiles.open(reader, trustStore.key(), trustStore.value(), trustStorePassword.key(),
        trustStorePassword.value(), PREFIX + "enabled");
    return new ManagementTls(true, keyStore.value(), keyStorePassword.value(),
        keyPassword.value().isEmpty() ? keyStorePassword.value() : keyPassword.value(),
        trustStore.value(), trustStorePassword.value(), reader.bool(PREFIX + "require-client-certificate"));
  }

  /** A value and the key it came from, so that an error names the key the operator set. */
  private record Setting(String key, String value) {}

  private static Setting setting(SettingsReader reader, String name) {
    return reader.optionalString(PREFIX + name).map(value -> new Setting(PREFIX + name, value))
        .or(() -> reader.optionalString(ARTERY + name).map(value -> new Setting(ARTERY + name, value)))
        .orElseGet(() -> new Setting(PREFIX + name, ""));
  }
}
