package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web app and widget are committed built (http's resources), so {@code ./colloquy serve} needs only
 * a JDK. This test builds them again from {@code web/} (type check included) into a temporary folder
 * and requires the result to be byte for byte what is committed: a change to the sources without
 * {@code npm run build} in {@code web/} fails here.
 */
class WebBundleTest {

  static final Path COMMITTED = Path.of("http", "src", "main", "resources", "dev", "colloquy", "http", "web");

  @Test
  void theCommittedBundleIsWhatTheSourcesBuild(@TempDir Path out) throws Exception {
    NodeProject web = NodeProject.installed("web");
    NodeProject.Run build = web.exec(List.of("npm", "run", "build"), Map.of("WEB_OUT_DIR", out.toString()),
        Duration.ofMinutes(3));
    assertThat(build.exitCode()).as(build.output()).isZero();

    Map<String, byte[]> built = files(out);
    Map<String, byte[]> committed = files(NodeProject.repository().resolve(COMMITTED));
    assertThat(built.keySet()).as("built files; run `npm run build` in web/ and commit the result")
        .containsExactlyElementsOf(committed.keySet());
    built.forEach((name, bytes) -> assertThat(bytes)
        .as("%s differs from the sources' build; run `npm run build` in web/ and commit the result", name)
        .isEqualTo(committed.get(name)));
    assertThat(built).containsKeys("index.html", "widget.js");
  }

  private static Map<String, byte[]> files(Path root) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
      }
    }
    return files;
  }
}
