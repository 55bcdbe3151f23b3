package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.mockllm.MockLlmServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes started together on new data directories unpack the embedded PostgreSQL's programs once,
 * in the directory they share, which stays theirs alone, and each runs its server from there; neither data
 * directory gets a copy.
 */
class EmbeddedBinariesIntegrationTest {

  @RegisterExtension
  final ChildColloquies children = new ChildColloquies();

  @Test
  void twoNewDataDirectoriesRunTheirServersFromOneCopy(@TempDir Path tmp) throws Exception {
    Path binaries = tmp.resolve("binaries");
    List<Path> dataDirs = List.of(tmp.resolve("first"), tmp.resolve("second"));
    try (MockLlmServer mock = TestColloquy.startMock()) {
      List<ChildColloquy> nodes = List.of(
          children.launch(dataDirs.get(0), mock, Map.of("COLLOQUY_EMBEDDED_BINARIES_DIR", binaries.toString()), "512m"),
          children.launch(dataDirs.get(1), mock, Map.of("COLLOQUY_EMBEDDED_BINARIES_DIR", binaries.toString()), "512m"));
      for (ChildColloquy node : nodes) {
        node.awaitReady();
        assertThat(node.api().get("/v1/sessions").status()).isEqualTo(200);
      }

      try (Stream<Path> copies = Files.list(binaries.resolve("postgres"))) {
        assertThat(copies.filter(Files::isDirectory).toList()).as("copies unpacked in " + binaries).hasSize(1);
      }
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(binaries)))
          .as("nobody else may enter where the server's programs are").isEqualTo("rwx------");
      for (Path dataDir : dataDirs) {
        assertThat(dataDir.resolve("postgres-runtime")).doesNotExist();
        Path server = Path.of("/proc", postmasterPid(dataDir), "exe").toRealPath();
        assertThat(server).as("the server of " + dataDir).startsWith(binaries.toRealPath());
      }
    }
  }

  /** The first line of PostgreSQL's postmaster.pid is the server's process id. */
  private static String postmasterPid(Path dataDir) throws java.io.IOException {
    return Files.readAllLines(dataDir.resolve("postgres").resolve("postmaster.pid")).get(0).strip();
  }
}
