package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.colloquy.config.ClusterSettings;
import dev.colloquy.config.ManagementTls;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.Uri;
import org.apache.pekko.management.cluster.bootstrap.ClusterBootstrap;
import org.apache.pekko.management.javadsl.PekkoManagement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node becomes a member: Cluster Bootstrap over the configured discovery, or the static seed
 * nodes; and the Pekko Management endpoints operators and orchestrators probe. {@link #pekkoConfig}
 * turns the {@code colloquy.cluster} settings into Pekko's keys before the actor system starts;
 * {@link #join} starts management and bootstrap once it runs.
 */
final class ClusterFormation {

  private static final Logger log = LoggerFactory.getLogger(ClusterFormation.class);
  private static final Duration MANAGEMENT_BIND_TIMEOUT = Duration.ofSeconds(30);
  private static final String BOOTSTRAP = "pekko.management.cluster.bootstrap.contact-point-discovery.";

  private ClusterFormation() {}

  /** Pekko's settings for {@code cluster}; {@code config} gives the cluster host the management endpoints default to. */
  static Config pekkoConfig(ClusterSettings cluster, Config config) {
    Map<String, Object> keys = new HashMap<>();
    String host = cluster.management().host().isEmpty()
        ? config.getString("pekko.remote.artery.canonical.hostname") : cluster.management().host();
    keys.put("pekko.management.http.hostname", host);
    keys.put("pekko.management.http.port", cluster.management().port());
    if (cluster.discovery().bootstrap()) {
      keys.put(BOOTSTRAP + "service-name", cluster.serviceName());
      keys.put(BOOTSTRAP + "required-contact-point-nr", cluster.requiredContactPoints());
    }
    switch (cluster.discovery()) {
      case SEED_NODES -> { }
      case CONFIG -> {
        keys.put(BOOTSTRAP + "discovery-method", "config");
        // The listed endpoints may use other ports than this node's own (several nodes on one host).
        keys.put("pekko.management.cluster.bootstrap.contact-point.filter-on-fallback-port", false);
        keys.put("pekko.discovery.config.services." + cluster.serviceName() + ".endpoints",
            ConfigValueFactory.fromIterable(cluster.contactPoints().stream()
                .map(point -> Map.of("host", point.host(), "port", point.port()))
                .toList()));
      }
      case KUBERNETES_API -> {
        keys.put(BOOTSTRAP + "discovery-method", "kubernetes-api");
        keys.put(BOOTSTRAP + "port-name", "management");
        keys.put("pekko.discovery.kubernetes-api.pod-label-selector", "app=%s");
      }
      case DNS -> {
        keys.put(BOOTSTRAP + "discovery-method", "pekko-dns");
        keys.put(BOOTSTRAP + "port-name", "management");
        keys.put(BOOTSTRAP + "protocol", "tcp");
      }
    }
    if (cluster.tls().enabled()) {
      keys.putAll(tls(cluster.tls()));
    }
    return ConfigFactory.parseMap(keys);
  }

  /**
   * Artery over TLS with Pekko's key-store engine: TLS 1.3 only, each side asks the other for its
   * certificate (mutual authentication) and checks it against the trust store. Host names are not
   * checked: nodes come and go with addresses no certificate could list, and a peer is trusted for
   * the key it holds.
   */
  private static Map<String, Object> tls(ClusterSettings.Tls tls) {
    String engine = "pekko.remote.artery.ssl.config-ssl-engine.";
    return Map.of(
        "pekko.remote.artery.transport", "tls-tcp",
        "pekko.remote.artery.ssl.ssl-engine-provider", "org.apache.pekko.remote.artery.tcp.ConfigSSLEngineProvider",
        engine + "key-store", tls.keyStore(),
        engine + "key-store-password", tls.keyStorePassword(),
        engine + "key-password", tls.keyPassword(),
        engine + "trust-store", tls.trustStore(),
        engine + "trust-store-password", tls.trustStorePassword(),
        engine + "protocol", "TLSv1.3",
        engine + "enabled-algorithms", ConfigValueFactory.fromIterable(List.of("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256")),
        engine + "require-mutual-authentication", "on");
  }

  /** Starts the management endpoints when enabled, then bootstrap; or joins the seed nodes, or itself when there are none. */
  static void join(ActorSystem<?> system, ClusterSettings cluster) throws Exception {
    if (cluster.management().enabled()) {
      startManagement(system, cluster);
    }
    if (cluster.discovery().bootstrap()) {
      log.info("Forming or joining the cluster with Cluster Bootstrap ({} discovery of '{}', {} contact points required)",
          cluster.discovery().name().toLowerCase().replace('_', '-'), cluster.serviceName(),
          cluster.requiredContactPoints());
      ClusterBootstrap.get(system).start();
      return;
    }
    List<String> seeds = system.settings().config().getStringList("pekko.cluster.seed-nodes");
    if (seeds.isEmpty()) {
      Cluster self = Cluster.get(system);
      self.manager().tell(Join.create(self.selfMember().address()));
    }
  }

  private static void startManagement(ActorSystem<?> system, ClusterSettings cluster) throws Exception {
    try {
      var uri = startEndpoints(system, cluster.management().tls())
          .toCompletableFuture().get(MANAGEMENT_BIND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      log.info("Management endpoints (cluster membership, /alive, /ready) on {}", uri);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("management port " + cluster.management().port()
          + " could not be bound (is another Colloquy running?); choose another with COLLOQUY_MANAGEMENT_PORT: "
          + Failures.describe(e.getCause()));
    }
  }

  /**
   * Plain HTTP, or HTTPS: then the endpoints' own address says https, which Cluster Bootstrap probes
   * the other nodes with, through the actor system's default client context (nothing else in the
   * node makes requests with Pekko's HTTP client).
   */
  private static CompletionStage<Uri> startEndpoints(ActorSystem<?> system, ManagementTls tls) {
    PekkoManagement management = PekkoManagement.get(system.classicSystem());
    if (!tls.enabled()) {
      return management.start();
    }
    ManagementHttps https = ManagementHttps.create(tls);
    Http.get(system.classicSystem()).setDefaultClientHttpsContext(https.client());
    return management.start(settings -> settings.withHttpsConnectionContext(https.server()));
  }
}
