package dev.colloquy.http.auth;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.colloquy.http.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** A JWKS document on 127.0.0.1, with the public halves of the key pairs it is given, counting its fetches. */
public final class JwksServer implements AutoCloseable {

  private final HttpServer server;
  private final Map<String, KeyPair> keys = new LinkedHashMap<>();
  private final AtomicInteger fetches = new AtomicInteger();

  private JwksServer(HttpServer server) {
    this.server = server;
  }

  public static JwksServer start() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      JwksServer jwks = new JwksServer(server);
      server.createContext("/jwks.json", exchange -> {
        jwks.fetches.incrementAndGet();
        byte[] body = jwks.document().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      });
      server.start();
      return jwks;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json";
  }

  public synchronized void publish(String kid, KeyPair pair) {
    keys.put(kid, pair);
  }

  public int fetches() {
    return fetches.get();
  }

  private synchronized String document() {
    ObjectNode document = Json.MAPPER.createObjectNode();
    ArrayNode list = document.putArray("keys");
    keys.forEach((kid, pair) -> {
      ObjectNode jwk = list.addObject().put("kid", kid).put("use", "sig");
      switch (pair.getPublic()) {
        case RSAPublicKey rsa -> jwk.put("kty", "RSA").put("alg", "RS256")
            .put("n", unsigned(rsa.getModulus(), 0)).put("e", unsigned(rsa.getPublicExponent(), 0));
        case ECPublicKey ec -> jwk.put("kty", "EC").put("alg", "ES256").put("crv", "P-256")
            .put("x", unsigned(ec.getW().getAffineX(), 32)).put("y", unsigned(ec.getW().getAffineY(), 32));
        default -> throw new IllegalArgumentException("not an RSA or EC key: " + pair.getPublic());
      }
    });
    return document.toString();
  }

  /** Base64url of the big-endian magnitude, left-padded to {@code length} bytes when given (RFC 7518 §6). */
  private static String unsigned(BigInteger value, int length) {
    byte[] bytes = value.toByteArray();
    if (bytes.length > 1 && bytes[0] == 0) {
      bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
    }
    if (bytes.length < length) {
      byte[] padded = new byte[length];
      System.arraycopy(bytes, 0, padded, length - bytes.length, bytes.length);
      bytes = padded;
    }
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
