package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's two commands, and the launcher behind them, as a newcomer meets them. */
class LauncherTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir
  Path scratch;

  @Test
  void ciRunsExactlyTheReadmesTestCommand() throws IOException {
    List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
    int block = readme.indexOf("```bash");
    String serve = command(readme.get(block + 1));
    String test = command(readme.get(block + 2));

    assertThat(serve).isEqualTo("./colloquy serve");
    assertThat(test).isEqualTo("./colloquy test");
    assertThat(Files.readAllLines(ROOT.resolve(".ci/run")).stream().map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#") && line.startsWith("./")))
        .containsExactly(test);
  }

  @Test
  void theTestCommandFindsAJdk21EvenWithJava17FirstOnThePath() throws Exception {
    Run run = bash(Map.of("PATH", "/usr/bin:/bin"), "./colloquy", "test", "--version");

    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output()).containsPattern("Java version: (2[1-9]|[3-9][0-9])");
  }

  @Test
  void withoutAJdk21TheLauncherSaysSoInOneLine() throws Exception {
    Run run = bash(Map.of("PATH", "/nonexistent:/bin", "JAVA_HOME", "/nonexistent",
        "COLLOQUY_JVM_DIR", scratch.toString()), "./colloquy", "test");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.output().strip()).startsWith("colloquy: a JDK 21 or newer is required").doesNotContain("\n");
  }

  @Test
  void onlyModuleSourcesAndPomsTriggerARebuild() throws Exception {
    Path stamp = file("app/target/.built", 0);
    file("pom.xml", -60);
    file("app/pom.xml", -60);
    file("app/src/main/java/Main.java", -60);
    file("data/postgres/postgresql.conf", 60);
    file("app/data/lucene/write.lock", 60);
    file("app/target/classes/Main.class", 60);
    file("notes.xml", 60);

    assertThat(newerSources(stamp)).isEmpty();

    file("app/src/main/resources/application.conf", 60);
    assertThat(newerSources(stamp)).endsWith("app/src/main/resources/application.conf");
    file("app/src/main/resources/application.conf", -60);
    file("app/pom.xml", 60);
    assertThat(newerSources(stamp)).endsWith("app/pom.xml");
  }

  @Test
  void dataDirectoriesInsideTheRepositoryAreIgnoredByGit() throws IOException {
    assertThat(Files.readAllLines(ROOT.resolve(".gitignore"))).contains("/data/", "data/");
  }

  private String newerSources(Path stamp) throws Exception {
    Run run = bash(Map.of(), "-c", ". '" + ROOT.resolve("scripts/sources.sh") + "' && sources_newer_than '"
        + scratch + "' '" + stamp + "'");
    assertThat(run.exit()).as(run.output()).isZero();
    return run.output().strip();
  }

  private Path file(String relative, int secondsFromNow) throws IOException {
    Path file = scratch.resolve(relative);
    Files.createDirectories(file.getParent());
    if (!Files.exists(file)) {
      Files.writeString(file, "x");
    }
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(secondsFromNow)));
    return file;
  }

  private static String command(String line) {
    int comment = line.indexOf('#');
    return (comment < 0 ? line : line.substring(0, comment)).strip();
  }

  private record Run(int exit, String output) {}

  private static Run bash(Map<String, String> environment, String... args) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(concat("bash", args)).directory(ROOT.toFile()).redirectErrorStream(true);
    builder.environment().remove("JAVA_HOME");
    builder.environment().putAll(environment);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return new Run(process.exitValue(), output);
  }

  private static String[] concat(String first, String... rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }
}
