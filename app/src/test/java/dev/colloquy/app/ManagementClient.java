package dev.colloquy.app;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A GET to a management endpoint over TLS 1.3 as an operator's tool makes it, showing the
 * certificate in {@code keys} (or none) and trusting what {@code trust} holds; or over plain TCP.
 * Host names are not checked, as the nodes do not check them either. A request the server refuses
 * ends in an {@link IOException}.
 */
record ManagementClient(SSLContext context) {

  private static final int TIMEOUT_MILLIS = 5_000;

  /** A client showing the key in {@code keys}, or no certificate when {@code keys} is null. */
  static ManagementClient of(Path keys, Path trust, String password) throws Exception {
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys == null ? null : KeyStore.getInstance(keys.toFile(), password.toCharArray()),
        password.toCharArray());
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(KeyStore.getInstance(trust.toFile(), password.toCharArray()));
    SSLContext context = SSLContext.getInstance("TLSv1.3");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
    return new ManagementClient(context);
  }

  /** The status code and body of {@code GET path} over TLS. */
  Response get(int port, String path) throws IOException {
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      socket.setEnabledProtocols(new String[] {"TLSv1.3"});
      socket.startHandshake();
      return exchange(socket, path);
    }
  }

  /** The same request without TLS; what came back, or the failure, as text. */
  static String plainGet(int port, String path) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      return exchange(socket, path).raw();
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static Response exchange(Socket socket, String path) throws IOException {
    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    InputStream in = socket.getInputStream();
    String raw = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    return new Response(raw);
  }

  /** What the server sent back, whole. */
  record Response(String raw) {

    /** The status code, or -1 when what came back is not HTTP. */
    int status() {
      if (!raw.startsWith("HTTP/1.1 ") || raw.length() < 12) {
        return -1;
      }
      return Integer.parseInt(raw.substring(9, 12));
    }

    String body() {
      int start = raw.indexOf("\r\n\r\n");
      return start < 0 ? "" : raw.substring(start + 4);
    }
  }
}
