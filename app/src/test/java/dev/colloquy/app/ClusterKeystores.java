package dev.colloquy.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Key stores made at test time with the JDK's {@code keytool}, as an operator makes them: the
 * cluster's key pair and certificate (every trusted node shows it), a trust store holding that
 * certificate, and a stranger's key pair whose certificate nobody trusts.
 */
record ClusterKeystores(Path nodeKeys, Path trust, Path strangerKeys, String password) {

  static ClusterKeystores generate() {
    try {
      Path dir = Files.createTempDirectory("colloquy-tls");
      dir.toFile().deleteOnExit();
      String password = "test-" + Long.toHexString(System.nanoTime());
      ClusterKeystores stores = new ClusterKeystores(dir.resolve("node.p12"), dir.resolve("trust.p12"),
          dir.resolve("stranger.p12"), password);
      Path certificate = dir.resolve("node.pem");
      keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
          "-dname", "CN=colloquy-node", "-storetype", "PKCS12", "-keystore", stores.nodeKeys().toString(),
          "-storepass", password);
      keytool("-exportcert", "-rfc", "-alias", "node", "-keystore", stores.nodeKeys().toString(),
          "-storepass", password, "-file", certificate.toString());
      keytool("-importcert", "-noprompt", "-alias", "node", "-file", certificate.toString(), "-storetype", "PKCS12",
          "-keystore", stores.trust().toString(), "-storepass", password);
      keytool("-genkeypair", "-alias", "stranger", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
          "-dname", "CN=colloquy-stranger", "-storetype", "PKCS12", "-keystore", stores.strangerKeys().toString(),
          "-storepass", password);
      for (Path file : List.of(stores.nodeKeys(), stores.trust(), stores.strangerKeys(), certificate)) {
        file.toFile().deleteOnExit();
      }
      return stores;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The settings of a node showing {@code keys} and trusting the cluster's certificate. */
  Map<String, Object> settings(Path keys) {
    return Map.of(
        "colloquy.cluster.tls.enabled", true,
        "colloquy.cluster.tls.key-store", keys.toString(),
        "colloquy.cluster.tls.key-store-password", password,
        "colloquy.cluster.tls.trust-store", trust.toString(),
        "colloquy.cluster.tls.trust-store-password", password);
  }

  private static void keytool(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("keytool " + arguments[0] + " failed: " + output);
    }
  }
}
