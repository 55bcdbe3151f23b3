package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bodies refused half-read still get their answer, over real HTTP. The answer to a refusal is made
 * slow on purpose (longer than the server's stream-cancellation-delay): a body that was cancelled
 * when refused had its connection cut before such an answer was written; a drained one keeps it.
 */
class StrictBodiesTest extends AllDirectives {

  private static final Duration BODY_TIMEOUT = Duration.ofMillis(500);
  private static final Duration SLOW_ANSWER = Duration.ofMillis(400);
  private static final int MAX_BYTES = 1024;

  private static ActorTestKit testKit;
  private static ServerBinding binding;

  @BeforeAll
  static void start() throws Exception {
    testKit = ActorTestKit.create("bodies", ConfigFactory.parseString("""
        pekko.http.server.parsing.max-content-length = %d
        pekko.http.server.stream-cancellation-delay = 10 millis
        """.formatted(MAX_BYTES)).withFallback(ConfigFactory.load()));
    binding = Http.get(testKit.system()).newServerAt("127.0.0.1", 0).bind(new StrictBodiesTest().route())
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    binding.unbind();
    testKit.shutdownTestKit();
  }

  /** Echoes a body read whole; a refusal is answered with its status after {@link #SLOW_ANSWER}. */
  private Route route() {
    return handleExceptions(slowRefusals(), () -> new StrictBodies(BODY_TIMEOUT).read(() ->
        extractRequestEntity(entity -> complete(((HttpEntity.Strict) entity).getData().utf8String()))));
  }

  private ExceptionHandler slowRefusals() {
    return ExceptionHandler.newBuilder().matchAny(failure -> {
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
      HttpResponse answer = cause instanceof ApiException api
          ? HttpResponse.create().withStatus(api.status()).withEntity(api.code())
          : cause instanceof EntityStreamSizeException
              ? HttpResponse.create().withStatus(StatusCodes.get(413)).withEntity("REQUEST_TOO_LARGE")
              : HttpResponse.create().withStatus(StatusCodes.INTERNAL_SERVER_ERROR).withEntity(cause.toString());
      return onSuccess(CompletableFuture.supplyAsync(() -> answer,
          CompletableFuture.delayedExecutor(SLOW_ANSWER.toMillis(), TimeUnit.MILLISECONDS)), this::complete);
    }).build();
  }

  @Test
  void aBodyReadInFullReachesTheRoute() throws Exception {
    String answer = exchange(head("Content-Length: 5\r\nConnection: close") + "hello");
    assertThat(answer).startsWith("HTTP/1.1 200").endsWith("hello");
  }

  @Test
  void aBodyThatStopsArrivingGetsItsTimeoutAnswer() throws Exception {
    String answer = exchange(head("Content-Length: 100") + "{\"metadata\":");
    assertThat(answer).startsWith("HTTP/1.1 408").endsWith("REQUEST_TIMEOUT");
  }

  @Test
  void aChunkedBodyThatGrowsPastTheLimitGetsItsTooLargeAnswer() throws Exception {
    String chunk = "x".repeat(MAX_BYTES / 2);
    String chunked = (Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n").repeat(3);
    String answer = exchange(head("Transfer-Encoding: chunked") + chunked);
    assertThat(answer).startsWith("HTTP/1.1 413").endsWith("REQUEST_TOO_LARGE");
  }

  /** Refused from its head: the client is not asked to send it (no 100 Continue). */
  @Test
  void aBodyDeclaredTooLargeIsRefusedUnread() throws Exception {
    String answer = exchange(head("Content-Length: " + (MAX_BYTES + 1) + "\r\nExpect: 100-continue"));
    assertThat(answer).startsWith("HTTP/1.1 413").doesNotContain("100 Continue").endsWith("REQUEST_TOO_LARGE");
  }

  private static String head(String bodyHeaders) {
    return "POST /read HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + bodyHeaders + "\r\n\r\n";
  }

  /** Sends {@code request} and reads until the server closes the connection. */
  private static String exchange(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", binding.localAddress().getPort())) {
      socket.setSoTimeout((int) Duration.ofSeconds(20).toMillis());
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      try {
        in.transferTo(bytes);
      } catch (SocketException reset) {
        // what arrived before the reset is the answer
      }
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }
}
