package dev.colloquy.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.util.Collections;

/**
 * Opens the key and trust stores a TLS block names, at start, so that a missing file, a wrong
 * password or a store without a key stops the node with a message naming the key, never the password.
 */
final class KeyStoreFiles {

  private KeyStoreFiles() {}

  /** {@code file} opened with {@code password}; {@code key} and {@code passwordKey} are named when it fails, {@code switchKey} says why it is needed. */
  static KeyStore open(SettingsReader reader, String key, String file, String passwordKey, String password,
      String switchKey) {
    if (file.isEmpty()) {
      throw reader.invalid(key, "must name a key store file (PKCS#12 or JKS) when " + switchKey + " is on");
    }
    if (!Files.isReadable(Path.of(file))) {
      throw reader.invalid(key, "cannot read the file " + file);
    }
    if (password.isEmpty()) {
      throw reader.invalid(passwordKey, "must be set when " + switchKey + " is on");
    }
    try {
      return KeyStore.getInstance(Path.of(file).toFile(), password.toCharArray());
    } catch (IOException | GeneralSecurityException e) {
      // The JDK's message says whether the password or the format is wrong; it never holds the password.
      throw reader.invalid(key, "cannot be opened with its password: " + e.getMessage());
    }
  }

  /** The store must hold a private key: this node's key and certificate. */
  static void requirePrivateKey(SettingsReader reader, String key, KeyStore store) {
    try {
      for (String alias : Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias)) {
          return;
        }
      }
      throw reader.invalid(key, "holds no private key (this node's key and certificate)");
    } catch (KeyStoreException e) {
      throw reader.invalid(key, "cannot be read: " + e.getMessage());
    }
  }
}
