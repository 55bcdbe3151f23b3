package dev.colloquy.app;

import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.mockllm.MockLlmSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real Colloquy (embedded PostgreSQL in a fresh data directory) and one mock model server for a
 * whole test class: {@code @RegisterExtension static final RunningColloquy app = RunningColloquy.with(...)}.
 */
final class RunningColloquy implements BeforeAllCallback, AfterAllCallback {

  private final MockLlmSettings mockSettings;
  private final Map<String, Object> overrides;
  private Path dataDir;
  private MockLlmServer mock;
  private Colloquy colloquy;
  private Api api;

  private RunningColloquy(MockLlmSettings mockSettings, Map<String, Object> overrides) {
    this.mockSettings = mockSettings;
    this.overrides = overrides;
  }

  static RunningColloquy with(MockLlmSettings mockSettings, Map<String, Object> overrides) {
    return new RunningColloquy(mockSettings, overrides);
  }

  static RunningColloquy withDefaults() {
    return with(TestColloquy.fastMock(), Map.of());
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dataDir = Files.createTempDirectory("colloquy-it");
    mock = MockLlmServer.start(mockSettings, "127.0.0.1", 0);
    colloquy = TestColloquy.start(mock, dataDir, overrides);
    api = TestColloquy.api(colloquy);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (colloquy != null) {
      colloquy.close();
    }
    if (mock != null) {
      mock.close();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  MockLlmServer mock() {
    return mock;
  }

  Colloquy colloquy() {
    return colloquy;
  }

  Api api() {
    return api;
  }
}
