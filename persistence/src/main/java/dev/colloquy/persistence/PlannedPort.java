package dev.colloquy.persistence;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/**
 * A loopback port chosen now for a server that binds it later: the embedded PostgreSQL, whose port the
 * journal's settings name before it has started, or a server in another process told its port on its
 * command line (a node a test or a benchmark launches). It is taken from below the kernel's ephemeral
 * range: a port from inside it could be handed to any socket bound to port 0 or any outgoing connection
 * in the meantime — a node's own cluster and HTTP ports start beside its database — and the server then
 * found its port taken (PostgreSQL waited its ten seconds on a port that another server answered).
 *
 * <p>The room below the ephemeral range is split in two, so the two kinds of planned port never meet: a
 * node launched on a port planned for it chooses its database's port from the other half before it binds
 * its own. Within one process no port is handed out twice while unused ones remain.
 */
public final class PlannedPort {

  /**
   * The lowest port chosen: below it lie the well-known and commonly configured ones, the cluster's own
   * among them (25520, and 2552x for the other nodes of a cluster on one machine), which may not be bound
   * yet when this port is chosen. Ports already bound anywhere above it are passed over.
   */
  static final int LOWEST = 26_000;

  /** The fewest ports between {@link #LOWEST} and the ephemeral range worth choosing from. */
  static final int LEAST_ROOM = 1_000;

  /** Where the ephemeral range starts on a kernel that does not say (IANA's dynamic ports; macOS, Windows). */
  static final int IANA_EPHEMERAL_START = 49_152;

  private static final Path LINUX_EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int ATTEMPTS = 100;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private PlannedPort() {}

  /** A port for this process's embedded PostgreSQL: the lower half of the room. */
  static int forEmbeddedDatabase() throws IOException {
    return choose(true);
  }

  /**
   * A port for a server that binds it later, in this process or another one it launches, other than an
   * embedded PostgreSQL: the upper half of the room. Also a port where nothing listens, for a test of an
   * unreachable server.
   */
  public static int forAnotherServer() throws IOException {
    return choose(false);
  }

  private static int choose(boolean lowerHalf) throws IOException {
    int ephemeralStart = ephemeralStart(readRange());
    if (ephemeralStart - LOWEST < LEAST_ROOM) {
      // A kernel whose ephemeral range starts this low leaves no room below it: take one of its ports.
      return bindable(() -> 0);
    }
    int middle = middle(ephemeralStart);
    int from = lowerHalf ? LOWEST : middle;
    int to = lowerHalf ? middle : ephemeralStart;
    return bindable(() -> notHandedOut(from, to));
  }

  /** Where the database's half ends and the other servers' half begins. */
  static int middle(int ephemeralStart) {
    return LOWEST + (ephemeralStart - LOWEST) / 2;
  }

  /** A random port in [from, to) this process has not handed out before (forgetting them all once half are). */
  private static int notHandedOut(int from, int to) {
    synchronized (HANDED_OUT) {
      if (HANDED_OUT.size() > (to - from) / 2) {
        HANDED_OUT.clear();
      }
      while (true) {
        int port = ThreadLocalRandom.current().nextInt(from, to);
        if (HANDED_OUT.add(port)) {
          return port;
        }
      }
    }
  }

  /** The first of {@code candidates} that can be bound on loopback now (0 is any the kernel gives). */
  static int bindable(IntSupplier candidates) throws IOException {
    BindException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), candidates.getAsInt()), 1);
        return socket.getLocalPort();
      } catch (BindException taken) {
        last = taken;
      }
    }
    throw new IOException("No free loopback port found in " + ATTEMPTS + " attempts", last);
  }

  /** The start of the ephemeral range that {@code range} ("32768\t60999", Linux's format) gives. */
  static int ephemeralStart(String range) {
    if (range == null) {
      return IANA_EPHEMERAL_START;
    }
    String[] bounds = range.strip().split("\\s+");
    try {
      return Integer.parseInt(bounds[0]);
    } catch (NumberFormatException unreadable) {
      return IANA_EPHEMERAL_START;
    }
  }

  /** Linux's range, or null. Read by line: {@code Files.readString} trusts the size /proc reports (0) and reads one byte. */
  static String readRange() {
    try {
      return Files.isReadable(LINUX_EPHEMERAL_RANGE) ? String.join(" ", Files.readAllLines(LINUX_EPHEMERAL_RANGE)) : null;
    } catch (IOException unreadable) {
      return null;
    }
  }
}
