package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the embedded PostgreSQL's programs are unpacked: once per user, not once per data directory, and
 * only where no one else can replace them. That two nodes really run their servers from one copy is
 * {@code EmbeddedBinariesIntegrationTest}'s (the library keeps the first location a JVM used).
 */
class EmbeddedBinariesTest {

  private static final String HOME = "/nonexistent-home";

  @TempDir
  Path tmp;

  @Test
  void aNewDataDirectoryUsesTheUsersCacheMadeForThisUserAlone() throws IOException {
    Path cacheHome = tmp.resolve("cache");
    Path dataDir = tmp.resolve("data");

    Path chosen = EmbeddedBinaries.directory(dataDir, Optional.empty(), Map.of("XDG_CACHE_HOME", cacheHome.toString()), HOME);

    assertThat(chosen).isEqualTo(cacheHome.resolve("colloquy").resolve("postgres"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(chosen.getParent()))).isEqualTo("rwx------");
    assertThat(dataDir.resolve(EmbeddedBinaries.OWN_COPY)).doesNotExist();
  }

  @Test
  void aDataDirectoryMadeByAnEarlierVersionKeepsTheCopyItHolds() throws IOException {
    Path dataDir = tmp.resolve("data");
    Path ownCopy = Files.createDirectories(dataDir.resolve(EmbeddedBinaries.OWN_COPY));

    assertThat(EmbeddedBinaries.directory(dataDir, Optional.empty(), Map.of("XDG_CACHE_HOME", tmp.resolve("cache").toString()),
        HOME)).isEqualTo(ownCopy);
    assertThat(tmp.resolve("cache")).doesNotExist();
  }

  @Test
  void withoutXdgCacheHomeTheCacheIsInTheHomeDirectoryAndARelativeOneIsIgnored() {
    assertThat(EmbeddedBinaries.userCache(Map.of(), "/home/ada")).isEqualTo(Path.of("/home/ada/.cache/colloquy"));
    assertThat(EmbeddedBinaries.userCache(Map.of("XDG_CACHE_HOME", "relative/cache"), "/home/ada"))
        .isEqualTo(Path.of("/home/ada/.cache/colloquy"));
    assertThat(EmbeddedBinaries.userCache(Map.of("XDG_CACHE_HOME", "/var/cache/ada"), "/home/ada"))
        .isEqualTo(Path.of("/var/cache/ada/colloquy"));
  }

  @Test
  void aUserWithoutAHomeDirectoryGetsTheDataDirectorysOwnCopy() {
    Path dataDir = tmp.resolve("data");

    assertThat(EmbeddedBinaries.directory(dataDir, Optional.empty(), Map.of(), "?"))
        .isEqualTo(dataDir.resolve(EmbeddedBinaries.OWN_COPY));
    assertThat(Path.of("?")).doesNotExist();
  }

  @Test
  void aCacheOthersMayWriteToIsPassedOverForTheDataDirectorysOwnCopy() throws IOException {
    Path cache = Files.createDirectories(tmp.resolve("cache").resolve("colloquy"));
    Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path dataDir = tmp.resolve("data");

    assertThat(EmbeddedBinaries.directory(dataDir, Optional.empty(), Map.of("XDG_CACHE_HOME", tmp.resolve("cache").toString()),
        HOME)).isEqualTo(dataDir.resolve(EmbeddedBinaries.OWN_COPY));
  }

  @Test
  void aConfiguredDirectoryOthersMayWriteToIsRefusedWithTheReason() throws IOException {
    Path shared = Files.createDirectories(tmp.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxr-x"));

    assertThatThrownBy(() -> EmbeddedBinaries.directory(tmp.resolve("data"), Optional.of(shared), Map.of(), HOME))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(shared.toString())
        .hasMessageContaining("COLLOQUY_EMBEDDED_BINARIES_DIR")
        .hasMessageContaining("others may write to it (rwxrwxr-x)");
  }

  @Test
  void aConfiguredDirectoryOfAnotherUserIsRefused() throws IOException {
    Path theirs = Files.createDirectories(tmp.resolve("theirs"));
    Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwx------"));
    UserPrincipal nobody;
    try {
      nobody = theirs.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(theirs, nobody);
    } catch (IOException e) {
      String reason = "giving a directory to the user nobody needs root and that user: " + e;
      System.out.println("Skipped: " + reason);
      Assumptions.abort(reason);
      return;
    }

    assertThatThrownBy(() -> EmbeddedBinaries.directory(tmp.resolve("data"), Optional.of(theirs), Map.of(), HOME))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("it belongs to nobody");
  }
}
