package dev.colloquy.config;

import java.util.Arrays;
import java.util.List;

/**
 * How a node finds the others and what it shows operators: the discovery method of Cluster Bootstrap
 * (or the static seed nodes), and the Pekko Management HTTP endpoints (membership, health, readiness)
 * on a port of their own.
 */
public record ClusterSettings(
    Discovery discovery,
    List<Endpoint> contactPoints,
    String serviceName,
    int requiredContactPoints,
    Management management) {

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

  /** The management endpoints; they always run when Cluster Bootstrap does, which talks to them. */
  public record Management(boolean enabled, String host, int port) {}

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
        reader.intInRange("colloquy.cluster.management.port", 0, 65535));
    return new ClusterSettings(discovery, contactPoints, serviceName,
        reader.intInRange("colloquy.cluster.required-contact-points", 1, 100), management);
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
