package dev.colloquy.app;

import dev.colloquy.config.ManagementTls;
import java.io.File;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.HttpsConnectionContext;

/**
 * The TLS of the management port, both ends: the server side its endpoints are bound with, and the
 * client side Cluster Bootstrap's probes of the other nodes' endpoints use. TLS 1.3 only with the
 * same suites as the nodes' own traffic; both sides show this node's certificate and check the
 * other's against the trust store. Host names are not checked: nodes come and go with addresses no
 * certificate could list, and a peer is trusted for the key it holds.
 */
final class ManagementHttps {

  private static final String[] PROTOCOLS = {"TLSv1.3"};
  private static final String[] SUITES = {"TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256"};

  private final SSLContext context;
  private final boolean requireClientCertificate;

  private ManagementHttps(SSLContext context, boolean requireClientCertificate) {
    this.context = context;
    this.requireClientCertificate = requireClientCertificate;
  }

  /** The stores were opened when the settings were read; what can still fail here is the key's own password. */
  static ManagementHttps create(ManagementTls tls) {
    try {
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(load(tls.keyStore(), tls.keyStorePassword()), tls.keyPassword().toCharArray());
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(load(tls.trustStore(), tls.trustStorePassword()));
      SSLContext context = SSLContext.getInstance("TLSv1.3");
      context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      return new ManagementHttps(context, tls.requireClientCertificate());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("colloquy.cluster.management.tls: the key in " + tls.keyStore()
          + " cannot be used (is key-password right?): " + e.getMessage());
    }
  }

  private static KeyStore load(String file, String password) throws IOException, GeneralSecurityException {
    return KeyStore.getInstance(new File(file), password.toCharArray());
  }

  /** What the management endpoints are bound with. */
  HttpsConnectionContext server() {
    return ConnectionContext.httpsServer(() -> {
      SSLEngine engine = context.createSSLEngine();
      engine.setUseClientMode(false);
      SSLParameters parameters = parameters();
      parameters.setNeedClientAuth(requireClientCertificate);
      engine.setSSLParameters(parameters);
      return engine;
    });
  }

  /** What Cluster Bootstrap's probes connect with (the actor system's default client context). */
  HttpsConnectionContext client() {
    return ConnectionContext.httpsClient((host, port) -> {
      SSLEngine engine = context.createSSLEngine(host, port);
      engine.setUseClientMode(true);
      engine.setSSLParameters(parameters());
      return engine;
    });
  }

  private SSLParameters parameters() {
    SSLParameters parameters = context.getDefaultSSLParameters();
    parameters.setProtocols(PROTOCOLS);
    parameters.setCipherSuites(SUITES);
    return parameters;
  }
}
