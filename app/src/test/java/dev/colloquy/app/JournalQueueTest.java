package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

class JournalQueueTest {

  /**
   * A write that finds the journal's queue full fails at once and stops its session with the running
   * turn interrupted; each session has one write in flight at most, and sessions write for requests and
   * turns, so the queue must have room for a write from every connection the node may hold.
   */
  @Test
  void theJournalsQueueHasRoomForAWriteFromEveryConnection() {
    Config config = Colloquy.loadConfig(ConfigFactory.empty());
    assertThat(config.getInt("jdbc-journal.bufferSize"))
        .isGreaterThan(config.getInt("pekko.http.server.max-connections"));
  }
}
