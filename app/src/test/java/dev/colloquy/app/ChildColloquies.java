package dev.colloquy.app;

import dev.colloquy.mockllm.MockLlmServer;
import dev.colloquy.persistence.LeftoverPostmaster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The child JVMs of one test: {@code @RegisterExtension final ChildColloquies children = new ChildColloquies()}.
 * After each test every child is stopped, and so is any PostgreSQL a killed child left behind; when
 * the test failed, every child's output is printed.
 */
final class ChildColloquies implements AfterEachCallback, TestWatcher {

  private final List<ChildColloquy> children = new ArrayList<>();
  private final List<Path> outputs = new ArrayList<>();
  private final List<Path> dataDirs = new ArrayList<>();

  ChildColloquy start(Path dataDir, MockLlmServer mock, Map<String, String> env) throws Exception {
    return start(dataDir, mock, env, "512m");
  }

  /** A child whose JVM heap is limited to {@code heap} ({@code -Xmx}). */
  ChildColloquy start(Path dataDir, MockLlmServer mock, Map<String, String> env, String heap) throws Exception {
    ChildColloquy child = launch(dataDir, mock, env, heap);
    child.awaitReady();
    return child;
  }

  /** A child that is not waited for: {@link ChildColloquy#awaitReady} does. */
  ChildColloquy launch(Path dataDir, MockLlmServer mock, Map<String, String> env, String heap) throws Exception {
    Path output = Files.createTempFile("colloquy-child-", ".log");
    outputs.add(output);
    if (!dataDirs.contains(dataDir)) {
      dataDirs.add(dataDir);
    }
    ChildColloquy child = ChildColloquy.launch(dataDir, mock, env, output, heap);
    children.add(child);
    return child;
  }

  /** What the {@code index}th child started printed so far. */
  String output(int index) throws java.io.IOException {
    return Files.readString(outputs.get(index));
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    for (ChildColloquy child : children) {
      child.stop();
    }
    for (Path dataDir : dataDirs) {
      LeftoverPostmaster.stopIfRunning(dataDir.resolve("postgres"));
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    for (Path output : outputs) {
      System.out.println("===== output of colloquy serve (" + output + ") =====");
      try {
        System.out.println(Files.readString(output));
      } catch (java.io.IOException e) {
        System.out.println("(unreadable: " + e + ")");
      }
    }
  }

  @Override
  public void testSuccessful(ExtensionContext context) {
    outputs.forEach(output -> output.toFile().delete());
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    testFailed(context, cause);
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {}
}
