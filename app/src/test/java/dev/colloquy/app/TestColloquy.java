package dev.colloquy.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.colloquy.config.LimitsSettings;
import dev.colloquy.http.SessionRoutes;
import dev.colloquy.mockllm.FailureMode;
import dev.colloquy.persistence.tenant.DuplicateTenantException;
import dev.colloquy.persistence.tenant.TenantStore;
import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/** Starts the real application on embedded PostgreSQL against a mock model server over HTTP. */
final class TestColloquy {

  static final String MODEL = "mock";
  static final String BROKEN_MODEL = "broken";

  private TestColloquy() {}

  /** The mock's defaults (16 tokens, fast) with the model "broken" answering 500. */
  static MockLlmSettings fastMock() {
    return MockLlmSettings.defaults().failing(FailureMode.HTTP_500, BROKEN_MODEL);
  }

  /** A turn that takes about 10 s: 200 tokens, 50 ms apart. */
  static MockLlmSettings slowMock() {
    return fastMock().withTokens(200).withDelays(Duration.ofMillis(50), Duration.ofMillis(50));
  }

  static MockLlmServer startMock() {
    return MockLlmServer.start(fastMock(), "127.0.0.1", 0);
  }

  static Config overrides(MockLlmServer mock, Path dataDir, Map<String, Object> extra) {
    Map<String, Object> settings = new HashMap<>();
    settings.put("colloquy.http.host", "127.0.0.1");
    settings.put("colloquy.http.port", 0);
    settings.put("pekko.remote.artery.canonical.port", 0);
    settings.put("colloquy.storage.data-dir", dataDir.toString());
    settings.put("colloquy.llm.base-url", mock.baseUrl());
    settings.put("colloquy.llm.model", MODEL);
    settings.put("colloquy.llm.extra-models", List.of(BROKEN_MODEL));
    settings.put("colloquy.llm.max-retries", 0);
    // Tests poll and run many turns with one key; the limits are tested where a test sets them.
    settings.put("colloquy.limits.requests-per-minute", LimitsSettings.MAX_RATE_PER_MINUTE);
    settings.put("colloquy.limits.turns-per-minute", LimitsSettings.MAX_RATE_PER_MINUTE);
    settings.putAll(extra);
    return ConfigFactory.parseMap(settings);
  }

  /** Starts Colloquy and returns once it reports ready (journal reachable, cluster member up). */
  static Colloquy start(MockLlmServer mock, Path dataDir, Map<String, Object> extra) throws Exception {
    Colloquy colloquy = Colloquy.start(overrides(mock, dataDir, extra));
    try {
      awaitReady(new Api(colloquy.baseUrl()));
      return colloquy;
    } catch (Exception | AssertionError e) {
      colloquy.close();
      throw e;
    }
  }

  static Colloquy start(MockLlmServer mock, Path dataDir) throws Exception {
    return start(mock, dataDir, Map.of());
  }

  /**
   * A client with a real key of the development tenant (id {@code default}), issued through the
   * tenant store; the tenant is created when the node did not (in production mode).
   */
  static Api api(Colloquy colloquy) {
    TenantStore tenants = new TenantStore(colloquy.database().dataSource());
    if (tenants.find(SessionRoutes.DEFAULT_TENANT).isEmpty()) {
      try {
        tenants.create(SessionRoutes.DEFAULT_TENANT, "dev");
      } catch (DuplicateTenantException createdByAnotherNode) {
        // it exists now
      }
    }
    return new Api(colloquy.baseUrl(), tenants.issueKey(SessionRoutes.DEFAULT_TENANT).orElseThrow().apiKey());
  }

  private static void awaitReady(Api api) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Api.Response ready = api.get("/ready");
    while (ready.status() != 200) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Colloquy did not become ready: " + ready.body());
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      ready = api.get("/ready");
    }
  }
}
