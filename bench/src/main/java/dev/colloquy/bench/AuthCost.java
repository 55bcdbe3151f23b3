package dev.colloquy.bench;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.AuthSettings;
import dev.colloquy.http.auth.Authentication;
import dev.colloquy.http.auth.JwksServer;
import dev.colloquy.persistence.tenant.ApiKeyStore;
import dev.colloquy.persistence.tenant.ApiKeys;
import dev.colloquy.persistence.tenant.StoredKey;
import java.net.URI;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Directives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.japi.function.Function;

/**
 * What authentication costs one request, in this JVM, without a socket: the request goes through
 * pekko-http's routing to a trivial inner route, once behind {@link Authentication} with each kind of
 * credential and once without it (the baseline). The modes take turns in batches, so that a change in
 * the machine's load touches all of them alike.
 */
final class AuthCost {

  enum Mode {
    NONE("none (baseline)"),
    API_KEY("API key (cache hit)"),
    HS256("HS256 JWT"),
    RS256("RS256 JWT (JWKS)");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /** One mode's latencies in nanoseconds. */
  record Row(Mode mode, Histogram nanos) {

    double p50Micros() {
      return nanos.getValueAtPercentile(50) / 1000.0;
    }

    double p99Micros() {
      return nanos.getValueAtPercentile(99) / 1000.0;
    }
  }

  private static final int BATCH = 500;
  private static final String TENANT = "bench";
  private static final String RSA_KID = "bench-rsa";

  private AuthCost() {}

  /** {@code warmUp} untimed calls then {@code calls} timed calls of every mode. */
  static List<Row> measure(int calls, int warmUp) throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "auth-bench",
        ConfigFactory.parseString("pekko.actor.provider = local").withFallback(ConfigFactory.load()));
    ExecutorService blocking = Executors.newVirtualThreadPerTaskExecutor();
    try (JwksServer jwks = JwksServer.start()) {
      String secret = random(32);
      KeyPair rsa = BenchTokens.rsaKeyPair();
      jwks.publish(RSA_KID, rsa);
      String keyId = random(8);
      String keySecret = random(32);
      StoredKey stored = new StoredKey(keyId, TENANT, ApiKeys.sha256(keySecret), false);
      Authentication authentication = new Authentication(new OneKey(stored),
          new AuthSettings(Optional.of(secret), Optional.of(URI.create(jwks.url())), BenchTokens.AUDIENCE,
              Optional.empty(), "tenant_id", Optional.empty()),
          Optional.empty(), idOrName -> TENANT.equals(idOrName) ? Optional.of(TENANT) : Optional.empty(), blocking);

      Route inner = Directives.complete("ok");
      Function<HttpRequest, CompletionStage<HttpResponse>> bare = inner.handler(system);
      Function<HttpRequest, CompletionStage<HttpResponse>> authenticated =
          authentication.principal("bench", principal -> inner).handler(system);
      Map<Mode, Call> modes = new EnumMap<>(Mode.class);
      modes.put(Mode.NONE, new Call(bare, HttpRequest.GET("/")));
      modes.put(Mode.API_KEY, new Call(authenticated, bearer(ApiKeys.PREFIX + keyId + "_" + keySecret)));
      modes.put(Mode.HS256, new Call(authenticated, bearer(BenchTokens.hs256(secret, TENANT))));
      modes.put(Mode.RS256, new Call(authenticated, bearer(BenchTokens.rs256(rsa, RSA_KID, TENANT))));

      Map<Mode, Histogram> nanos = new EnumMap<>(Mode.class);
      for (Mode mode : Mode.values()) {
        nanos.put(mode, new Histogram(3));
      }
      for (int done = 0; done < warmUp + calls; done += BATCH) {
        int batch = Math.min(BATCH, warmUp + calls - done);
        for (Mode mode : Mode.values()) {
          Call call = modes.get(mode);
          for (int i = 0; i < batch; i++) {
            long took = call.run(mode);
            if (done + i >= warmUp) {
              nanos.get(mode).recordValue(took);
            }
          }
        }
      }
      List<Row> rows = new ArrayList<>();
      for (Mode mode : Mode.values()) {
        rows.add(new Row(mode, nanos.get(mode)));
      }
      return rows;
    } finally {
      blocking.shutdownNow();
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().join();
    }
  }

  private record Call(Function<HttpRequest, CompletionStage<HttpResponse>> handler, HttpRequest request) {

    /** The nanoseconds from handing the request to routing until its response is complete. */
    long run(Mode mode) throws Exception {
      long started = System.nanoTime();
      HttpResponse response = handler.apply(request).toCompletableFuture().get();
      long took = System.nanoTime() - started;
      if (response.status().intValue() != 200) {
        throw new IllegalStateException(mode.label + ": HTTP " + response.status());
      }
      return took;
    }
  }

  private static HttpRequest bearer(String token) {
    return HttpRequest.GET("/").addHeader(RawHeader.create("Authorization", "Bearer " + token));
  }

  private static String random(int bytes) {
    byte[] value = new byte[bytes];
    new SecureRandom().nextBytes(value);
    return HexFormat.of().formatHex(value);
  }

  /** The key store of a single key, in memory: the cache's misses, every few seconds, cost a map lookup. */
  private record OneKey(StoredKey key) implements ApiKeyStore {

    @Override
    public Optional<StoredKey> findKey(String keyId) {
      return key.keyId().equals(keyId) ? Optional.of(key) : Optional.empty();
    }

    @Override
    public void markUsed(String keyId, Instant at) {}
  }
}
