package dev.colloquy.persistence;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The migration scripts Flyway applies (every one is in {@value #LOCATION}, see its README), read from
 * the class path as Flyway reads them, so that a database made from them can be recognised later: two
 * builds with the same scripts have the same {@link #digest}, and a changed, added or removed script
 * changes it.
 */
final class MigrationScripts {

  static final String LOCATION = "db/migration";

  private MigrationScripts() {}

  /** SHA-256 over each script's name and content, in name order, as hex. */
  static String digest() {
    return digest(scripts(MigrationScripts.class.getClassLoader()));
  }

  static String digest(Map<String, byte[]> scripts) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, byte[]> script : new TreeMap<>(scripts).entrySet()) {
        sha256.update(script.getKey().getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        sha256.update(Integer.toString(script.getValue().length).getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        sha256.update(script.getValue());
      }
      return HexFormat.of().formatHex(sha256.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** The scripts by name: every file under {@value #LOCATION} in the jars and folders of the class path. */
  static Map<String, byte[]> scripts(ClassLoader loader) {
    Map<String, byte[]> scripts = new TreeMap<>();
    try {
      for (URL root : Collections.list(loader.getResources(LOCATION))) {
        switch (root.getProtocol()) {
          case "jar" -> readJar(root, scripts);
          case "file" -> readFolder(Path.of(root.toURI()), scripts);
          default -> throw new IllegalStateException("migrations at " + root + " cannot be listed");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the migration scripts", e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot read the migration scripts", e);
    }
    return scripts;
  }

  private static void readJar(URL root, Map<String, byte[]> scripts) throws IOException {
    JarURLConnection connection = (JarURLConnection) root.openConnection();
    connection.setUseCaches(false);
    try (JarFile jar = connection.getJarFile()) {
      for (JarEntry entry : Collections.list(jar.entries())) {
        if (!entry.isDirectory() && entry.getName().startsWith(LOCATION + "/")) {
          try (InputStream in = jar.getInputStream(entry)) {
            scripts.put(entry.getName().substring(LOCATION.length() + 1), in.readAllBytes());
          }
        }
      }
    }
  }

  private static void readFolder(Path folder, Map<String, byte[]> scripts) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        scripts.put(folder.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
      }
    }
  }
}
