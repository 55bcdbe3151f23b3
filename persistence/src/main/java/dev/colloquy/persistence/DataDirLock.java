package dev.colloquy.persistence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a data directory, held for the life of the process, so that a second
 * Colloquy on the same directory stops with a clear message instead of corrupting the database.
 */
public final class DataDirLock implements AutoCloseable {

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Takes the lock or throws {@link DataDirInUseException}. */
  public static DataDirLock acquire(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      Path file = dataDir.resolve("colloquy.lock");
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (java.nio.channels.OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        channel.close();
        throw new DataDirInUseException(dataDir);
      }
      return new DataDirLock(channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot lock the data directory " + dataDir, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Another process (or this one) already runs on the directory. */
  public static final class DataDirInUseException extends RuntimeException {
    DataDirInUseException(Path dataDir) {
      super("The data directory " + dataDir + " is in use by another Colloquy process; stop it first or set "
          + "COLLOQUY_DATA_DIR to another directory");
    }
  }
}
