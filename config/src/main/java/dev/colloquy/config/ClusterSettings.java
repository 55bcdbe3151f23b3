package dev.colloquy.config;

import java.util.Arrays;
import java.util.List;

/**
 * How a node finds the others and what it shows operators: the discovery method of Cluster Bootstrap
 * (or the static seed nodes), and the Pekko Management HTTP endpoints (membership, health, readiness)
 * on a port of their own; optionally mutual TLS for the traffic between the nodes.
 */
public record ClusterSettings(
    Discovery discovery,
    List<Endpoint> contactPoints,
    String serviceName,
    int requiredContactPoints,
    Management management,
    Tls tls) {

  /** How nodes find each other. */
  public enum Discovery {
    /** The static {@code pekko.cluster.seed-nodes} (COLLOQUY_SEED_NODES); none: a cluster of one. */
    SEED_NODES,
    /** Cluster Bootstrap over a fixed list of management endpoints (bare metal, docker-compose). */
    CONFIG,
    /** Cluster Bootstrap over the pods labelled {@code app=<service-name>} in the pod's namespace. */
    KUBERNETES_API,
    /** Cluster Bootstrap over the DNS SRV records of a headless Service's port named {@code management}. */
    DNS;

    public boolean bootstrap() {
      return this != SEED_NODES;
    }
  }

  /** A management endpoint of another node, {@code host:port}. */
  public record Endpoint(String host, int port) {}

  /**
   * The management endpoints; they always run when Cluster Bootstrap does, which talks to them.
   * {@code tls}: HTTPS on their port, and the client side of Cluster Bootstrap's probes.
   */
  public record Management(boolean enabled, String host, int port, ManagementTls tls) {}

  /**
   * Mutual TLS between the nodes (Artery over tls-tcp): this node's key and certificate, and the
   * certificates (or the authority) it trusts in its peers. The passwords never show in toString.
   */
  public record Tls(boolean enabled, String keyStore, String keyStorePassword, String keyPassword,
      String trustStore, String trustStorePassword) {

    static final Tls OFF = new Tls(false, "", "", "", "", "");

    @Override
    public String toString() {
      return enabled ? "Tls[key-store=" + keyStore + ", trust-store=" + trustStore + "]" : "Tls[off]";
    }
  }

  static ClusterSettings create(SettingsReader reader) {
    Discovery discovery = discovery(reader, "colloquy.cluster.discovery");
    List<Endpoint> contactPoints = endpoints(reader, "colloquy.cluster.contact-points");
    if (discovery == Discovery.CONFIG && contactPoints.isEmpty()) {
      throw reader.invalid("colloquy.cluster.contact-points",
          "must list the management endpoints (host:port, comma-separated) of the nodes when discovery is config");
    }
    String serviceName = reader.string("colloquy.cluster.service-name").strip();
    if (serviceName.isEmpty()) {
      throw reader.invalid("colloquy.cluster.service-name", "must not be empty");
    }
    Management management = new Management(
        reader.bool("colloquy.cluster.management.enabled") || discovery.bootstrap(),
        reader.optionalString("colloquy.cluster.management.host").orElse(""),
        reader.intInRange("colloquy.cluster.management.port", 0, 65535),
        ManagementTls.create(reader));
    return new ClusterSettings(discovery, contactPoints, serviceName,
        reader.intInRange("colloquy.cluster.required-contact-points", 1, 100), management, tls(reader));
  }

  /** When on, both stores must open with their passwords and the key store must hold a private key. */
  private static Tls tls(SettingsReader reader) {
    if (!reader.bool("colloquy.cluster.tls.enabled")) {
      return Tls.OFF;
    }
    String prefix = "colloquy.cluster.tls.";
    String keyStore = reader.optionalString(prefix + "key-store").orElse("");
    String keyStorePassword = reader.optionalString(prefix + "key-store-password").orElse("");
    String keyPassword = reader.optionalString(prefix + "key-password").orElse(keyStorePassword);
    String trustStore = reader.optionalString(prefix + "trust-store").orElse("");
    String trustStorePassword = reader.optionalString(prefix + "trust-store-password").orElse("");
    KeyStoreFiles.requirePrivateKey(reader, prefix + "key-store", KeyStoreFiles.open(reader, prefix + "key-store",
        keyStore, prefix + "key-store-password", keyStorePassword, prefix + "enabled"));
    KeyStoreFiles.open(reader, prefix + "trust-store", trustStore, prefix + "trust-store-password", trustStorePassword,
        prefix + "enabled");
    return new Tls(true, keyStore, keyStorePassword, keyPassword, trustStore, trustStorePassword);
  }

  /** The names are written as in Pekko's own settings: seed-nodes, config, kubernetes-api, dns. */
  private static Discovery discovery(SettingsReader reader, String key) {
    String value = reader.string(key).strip();
    for (Discovery discovery : Discovery.values()) {
      if (discovery.name().replace('_', '-').equalsIgnoreCase(value)) {
        return discovery;
      }
    }
    throw reader.invalid(key, "must be one of seed-nodes, config, kubernetes-api, dns, was '" + value + "'");
  }

  private static List<Endpoint> endpoints(SettingsReader reader, String key) {
    String value = reader.optionalString(key).orElse("");
    return Arrays.stream(value.split(","))
        .map(String::strip)
        .filter(entry -> !entry.isEmpty())
        .map(entry -> endpoint(reader, key, entry))
        .toList();
  }

  private static Endpoint endpoint(SettingsReader reader, String key, String entry) {
    int colon = entry.lastIndexOf(':');
    if (colon <= 0 || colon == entry.length() - 1) {
      throw reader.invalid(key, "each contact point must be host:port, was '" + entry + "'");
    }
    try {
      int port = Integer.parseInt(entry.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw reader.invalid(key, "port out of range in '" + entry + "'");
      }
      return new Endpoint(entry.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw reader.invalid(key, "each contact point must be host:port, was '" + entry + "'");
    }
  }
}
