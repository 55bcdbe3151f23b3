package dev.colloquy.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.PrimitiveIterator;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Ports planned before their server binds them: outside the range the kernel hands to port-0 binds and outgoing connections. */
class PlannedPortTest {

  @Test
  void theDatabasesPortsAndOtherServersPortsLieInSeparateHalvesBelowTheKernelsEphemeralRangeAndCanBeBound()
      throws Exception {
    int ephemeralStart = PlannedPort.ephemeralStart(PlannedPort.readRange());
    assertThat(ephemeralStart).as("this machine's ephemeral range starts well above the lowest port chosen")
        .isGreaterThan(PlannedPort.LOWEST + PlannedPort.LEAST_ROOM);
    int middle = PlannedPort.middle(ephemeralStart);
    for (int i = 0; i < 20; i++) {
      int database = PlannedPort.forEmbeddedDatabase();
      int other = PlannedPort.forAnotherServer();
      assertThat(database).isBetween(PlannedPort.LOWEST, middle - 1);
      assertThat(other).isBetween(middle, ephemeralStart - 1);
      for (int port : new int[] {database, other}) {
        try (ServerSocket server = new ServerSocket()) {
          server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        }
      }
    }
  }

  @Test
  void noPortIsHandedOutTwiceByOneProcess() throws Exception {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      assertThat(ports.add(PlannedPort.forAnotherServer())).as("port %d handed out again", i).isTrue();
    }
  }

  @Test
  void aPortInUseIsPassedOver() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int free;
      try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        free = probe.getLocalPort();
      }
      PrimitiveIterator.OfInt candidates = IntStream.of(taken.getLocalPort(), free).iterator();
      assertThat(PlannedPort.bindable(candidates::nextInt)).isEqualTo(free);
    }
  }

  @Test
  void theRangeIsReadAsLinuxWritesItAndIanasStartOtherwise() {
    assertThat(PlannedPort.ephemeralStart("32768\t60999\n")).isEqualTo(32768);
    assertThat(PlannedPort.ephemeralStart("1024 65535")).isEqualTo(1024);
    assertThat(PlannedPort.ephemeralStart(null)).isEqualTo(PlannedPort.IANA_EPHEMERAL_START);
    assertThat(PlannedPort.ephemeralStart("")).isEqualTo(PlannedPort.IANA_EPHEMERAL_START);
  }
}
