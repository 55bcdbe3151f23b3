package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.colloquy.http.OpenConnections;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.javadsl.Flow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ApiListenerTest {

  private static final Duration HARD_DEADLINE = Duration.ofSeconds(1);

  private ActorSystem<Void> system;
  /** Completes when the node has received a request for /never (it then owes that request an answer). */
  private final CompletableFuture<Void> neverAsked = new CompletableFuture<>();

  @AfterEach
  void stop() {
    if (system != null) {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().join();
    }
  }

  @Test
  void aConnectionPastMaxConnectionsIsServedOnceAnOpenOneCloses() throws Exception {
    int port = listen(1);
    try (Socket first = new Socket("127.0.0.1", port); Socket second = new Socket("127.0.0.1", port)) {
      BufferedReader firstReads = ask(first, "/now");
      assertThat(firstReads.readLine()).isEqualTo("HTTP/1.1 200 OK");

      // The kernel has the second connection, but the node takes it only once the first has closed.
      BufferedReader secondReads = ask(second, "/now");
      second.setSoTimeout(1_000);
      assertThatThrownBy(secondReads::readLine).isInstanceOf(SocketTimeoutException.class);

      first.close();
      second.setSoTimeout(10_000);
      assertThat(secondReads.readLine()).isEqualTo("HTTP/1.1 200 OK");
    }
  }

  @Test
  void stoppingUnbindsClosesAnsweredConnectionsAndCutsThoseStillWaiting() throws Exception {
    int port = listen(10);
    try (Socket answered = new Socket("127.0.0.1", port); Socket waiting = new Socket("127.0.0.1", port)) {
      BufferedReader answeredReads = ask(answered, "/now");
      assertThat(answeredReads.readLine()).isEqualTo("HTTP/1.1 200 OK");
      BufferedReader waitingReads = ask(waiting, "/never");
      // Stopped before the node has read it, the request would race the close (and its client send it
      // again); here it is one the node owes an answer.
      neverAsked.get(10, TimeUnit.SECONDS);
      answered.setSoTimeout(10_000);
      waiting.setSoTimeout(10_000);

      CompletableFuture<?> stopped = CoordinatedShutdown.get(system)
          .runAll(CoordinatedShutdown.unknownReason()).toCompletableFuture();

      // Each read returns once its connection has ended: the answered one at once, the waiting one
      // after the deadline, told to come back.
      untilClosed(answeredReads);
      assertThat(untilClosed(waitingReads)).contains("HTTP/1.1 503 Service Unavailable", "Retry-After: 5")
          .anyMatch(line -> line.contains("\"code\":\"SHUTTING_DOWN\""));
      stopped.get(30, TimeUnit.SECONDS);
      assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }
  }

  /** Binds a listener on a free port, answering /now at once and /never never. */
  private int listen(int maxConnections) throws Exception {
    system = ActorSystem.create(Behaviors.empty(), "api-listener-test", ConfigFactory.parseString(
            "pekko.actor.provider = local\npekko.http.server.max-connections = " + maxConnections)
        .withFallback(ConfigFactory.load()));
    Flow<HttpRequest, HttpResponse, ?> handler = Flow.<HttpRequest>create()
        .mapAsync(4, request -> {
          if (request.getUri().path().equals("/never")) {
            neverAsked.complete(null);
            return new CompletableFuture<HttpResponse>();
          }
          return CompletableFuture.completedFuture(HttpResponse.create().withEntity("now"));
        });
    OpenConnections open = new OpenConnections();
    ApiListener listener = ApiListener.bind(system, "127.0.0.1", 0, open.around(handler), open, HARD_DEADLINE)
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    return listener.binding().localAddress().getPort();
  }

  private static BufferedReader ask(Socket socket, String path) throws IOException {
    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
  }

  /** Reads to the end of the connection; the lines that came. */
  private static List<String> untilClosed(BufferedReader reads) throws IOException {
    List<String> lines = new ArrayList<>();
    try {
      for (String line = reads.readLine(); line != null; line = reads.readLine()) {
        lines.add(line);
      }
    } catch (SocketTimeoutException notClosed) {
      throw new AssertionError("The connection was still open 10 s after the node began to stop", notClosed);
    }
    return lines;
  }
}
