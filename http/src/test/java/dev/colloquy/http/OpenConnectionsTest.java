package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stopping node's connections, over real sockets: each is closed once it has written its response to
 * the last byte, before the server's own termination (which drops what a connection has not written).
 * The streamed body is larger than the loopback's socket buffers, so when its source has ended most of
 * it is still waiting for the client to read, as the end of an event stream waits behind a slow reader.
 */
class OpenConnectionsTest extends AllDirectives {

  private static final Duration WAIT = Duration.ofSeconds(30);
  /** Far beyond what the kernel buffers between two loopback sockets (here up to 4 MiB sent, 32 MiB received). */
  private static final int LARGE_BODY = 128 * 1024 * 1024;

  private ActorTestKit testKit;
  private ServerBinding binding;
  private OpenConnections connections;
  private final CompletableFuture<Void> largeBodyEnded = new CompletableFuture<>();
  private final CompletableFuture<Void> slowRequested = new CompletableFuture<>();
  private final CompletableFuture<String> slowAnswer = new CompletableFuture<>();

  @BeforeEach
  void start() throws Exception {
    testKit = ActorTestKit.create("connections");
    connections = new OpenConnections();
    binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0)
        .bindFlow(connections.around(route().flow(testKit.system())))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    binding.terminate(Duration.ofSeconds(1));
    testKit.shutdownTestKit();
  }

  private Route route() {
    return concat(
        path("large", () -> {
          byte[] body = new byte[LARGE_BODY];
          Arrays.fill(body, (byte) 'x');
          Source<ByteString, ?> bytes = Source.single(ByteString.fromArrayUnsafe(body)).watchTermination((mat, done) -> {
            done.whenComplete((ok, error) -> largeBodyEnded.complete(null));
            return mat;
          });
          return complete(HttpResponse.create().withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_OCTET_STREAM,
              bytes)));
        }),
        path("slow", () -> {
          slowRequested.complete(null);
          return onSuccess(slowAnswer, this::complete);
        }),
        path("small", () -> complete("small")));
  }

  @Test
  void aBodyStillBeingWrittenReachesTheClientWholeAfterTheServerHasTerminated() throws Exception {
    try (Socket client = connect()) {
      send(client, "GET /large HTTP/1.1\r\nHost: test\r\n\r\n");
      largeBodyEnded.get(WAIT.toSeconds(), TimeUnit.SECONDS);

      // Closed as a stopping node closes them, then terminated as the server's binding is next; the
      // client reads only afterwards, when most of the body is still waiting to be written.
      assertThat(connections.closeAll(WAIT).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
      binding.terminate(Duration.ofSeconds(1)).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      byte[] answer = readToEnd(client);

      String text = new String(answer, StandardCharsets.ISO_8859_1);
      assertThat(text).startsWith("HTTP/1.1 200 OK").contains("Transfer-Encoding: chunked");
      assertThat(answer.length).isGreaterThan(LARGE_BODY);
      assertThat(text).as("the chunked body ends with its last chunk").endsWith("\r\n0\r\n\r\n");
    }
  }

  @Test
  void anIdleKeepAliveConnectionClosesAtOnce() throws Exception {
    try (Socket client = connect()) {
      send(client, "GET /small HTTP/1.1\r\nHost: test\r\n\r\n");
      assertThat(readUntil(client.getInputStream(), "small")).startsWith("HTTP/1.1 200 OK");
      assertThat(connections.count()).isEqualTo(1);

      assertThat(connections.closeAll(WAIT).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();

      assertThat(client.getInputStream().read()).as("the server closed the connection").isEqualTo(-1);
      assertThat(connections.count()).isZero();
    }
  }

  @Test
  void aRequestStillBeingAnsweredGetsItsAnswerBeforeItsConnectionCloses() throws Exception {
    try (Socket client = connect()) {
      send(client, "GET /slow HTTP/1.1\r\nHost: test\r\n\r\n");
      slowRequested.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      CompletableFuture<Integer> stillOpen = connections.closeAll(WAIT).toCompletableFuture();
      assertThat(stillOpen).isNotDone();

      slowAnswer.complete("slow answer");

      String text = new String(readToEnd(client), StandardCharsets.ISO_8859_1);
      assertThat(text).startsWith("HTTP/1.1 200 OK").endsWith("slow answer");
      assertThat(stillOpen.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    }
  }

  private Socket connect() throws IOException {
    Socket client = new Socket("127.0.0.1", binding.localAddress().getPort());
    client.setSoTimeout((int) WAIT.toMillis());
    return client;
  }

  private static void send(Socket client, String request) throws IOException {
    client.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
    client.getOutputStream().flush();
  }

  /** Everything until the server closes the connection; a reset fails the test. */
  private static byte[] readToEnd(Socket client) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    client.getInputStream().transferTo(all);
    return all.toByteArray();
  }

  private static String readUntil(InputStream in, String end) throws IOException {
    StringBuilder text = new StringBuilder();
    while (!text.toString().endsWith(end)) {
      int next = in.read();
      assertThat(next).as("the connection ended before " + end + "; got " + text).isNotEqualTo(-1);
      text.append((char) next);
    }
    return text.toString();
  }
}
