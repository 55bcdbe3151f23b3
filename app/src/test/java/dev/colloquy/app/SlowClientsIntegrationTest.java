package dev.colloquy.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.mockllm.FailureMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Clients that are slow on purpose (slowloris) or because the answer takes long, on a node whose
 * timeouts are scaled down: 1 s for a request head, a body and an upload, 3 s for an idle
 * connection, while a turn takes about 6 s; uploads of at most 64 KiB.
 */
class SlowClientsIntegrationTest {

  private static final Duration HEAD_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration BODY_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(3);
  /** A turn of about 6 s: twice the idle timeout. */
  private static final int SLOW_TOKENS = 60;
  private static final int MAX_UPLOAD = 64 * 1024;
  private static final String BOUNDARY = "slow-client-boundary";

  @RegisterExtension
  static final RunningColloquy app = RunningColloquy.with(TestColloquy.fastMock(), Map.of(
      "colloquy.http.request-head-timeout", HEAD_TIMEOUT.toMillis() + "ms",
      "colloquy.http.request-body-timeout", BODY_TIMEOUT.toMillis() + "ms",
      "colloquy.knowledge.ingestion.upload-timeout", BODY_TIMEOUT.toMillis() + "ms",
      "colloquy.knowledge.ingestion.max-upload", MAX_UPLOAD,
      "colloquy.http.keep-alive", "500ms",
      "pekko.http.server.idle-timeout", IDLE_TIMEOUT.toMillis() + "ms"));

  @AfterEach
  void fastAgain() {
    app.mock().reconfigure(TestColloquy.fastMock());
  }

  @Test
  void aClientSendingItsHeadersAByteAtATimeIsDisconnected() throws Exception {
    byte[] head = head("POST", "/v1/sessions", 2);
    try (Socket socket = connect()) {
      long start = System.nanoTime();
      int sent = trickle(socket, head, Duration.ofMillis(100));
      Duration held = Duration.ofNanos(System.nanoTime() - start);
      assertThat(sent).as("bytes of the head sent before the server closed the connection").isLessThan(head.length);
      assertThat(held).isLessThan(HEAD_TIMEOUT.multipliedBy(5));
    }
    assertThat(app.api().get("/ready").status()).isEqualTo(200);
  }

  @Test
  void aBodySentAByteAtATimeIsCutOff() throws Exception {
    byte[] body = ("{\"metadata\":{\"padding\":\"" + "x".repeat(200) + "\"}}").getBytes(StandardCharsets.US_ASCII);
    try (Socket socket = connect()) {
      socket.getOutputStream().write(head("POST", "/v1/sessions", body.length));
      long start = System.nanoTime();
      int sent = trickle(socket, body, Duration.ofMillis(100));
      assertThat(sent).as("bytes of the body sent before the server closed the connection").isLessThan(body.length);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BODY_TIMEOUT.multipliedBy(5));
    }
  }

  /** A body that stops arriving: nothing is left unread, so the answer is read before the close. */
  @Test
  void aBodyThatStopsArrivingIsAnsweredWithRequestTimeout() throws Exception {
    try (Socket socket = connect()) {
      socket.getOutputStream().write(head("POST", "/v1/sessions", 100));
      socket.getOutputStream().write("{\"metadata\":".getBytes(StandardCharsets.US_ASCII));
      String answer = readAll(socket.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 408");
      JsonNode error = errorOf(answer);
      assertThat(error.path("code").asText()).isEqualTo("REQUEST_TIMEOUT");
      assertThat(error.path("trace_id").asText()).hasSize(32);
    }
  }

  /** The upload's deadline passes mid-file: the answer arrives, and the part written so far is deleted. */
  @Test
  void anUploadThatStopsArrivingIsAnsweredWithRequestTimeout() throws Exception {
    try (Socket socket = connect()) {
      String part = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n"
          + "Content-Type: text/plain\r\n\r\n" + "Opening hours are nine to five.\n".repeat(100);
      socket.getOutputStream().write(uploadHead("Content-Length: " + (part.length() + 10_000)));
      socket.getOutputStream().write(part.getBytes(StandardCharsets.US_ASCII));
      String answer = readAll(socket.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 408");
      assertThat(errorOf(answer).path("code").asText()).isEqualTo("REQUEST_TIMEOUT");
    }
    try (java.util.stream.Stream<java.nio.file.Path> left =
        java.nio.file.Files.list(app.colloquy().settings().storage().dataDir().resolve("uploads"))) {
      assertThat(left).as("upload files left behind").isEmpty();
    }
  }

  /** A chunked upload declares no length: it is refused once it has grown past the limit, and told so. */
  @Test
  void aChunkedUploadThatGrowsPastTheLimitIsAnsweredWithTooLarge() throws Exception {
    try (Socket socket = connect()) {
      socket.getOutputStream().write(uploadHead("Transfer-Encoding: chunked"));
      String part = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.txt\"\r\n"
          + "Content-Type: text/plain\r\n\r\n";
      socket.getOutputStream().write(chunk(part));
      String line = "Returns are accepted within thirty days of purchase.\n".repeat(1000);
      try {
        for (int sent = 0; sent < 4 * MAX_UPLOAD; sent += line.length()) {
          socket.getOutputStream().write(chunk(line));
        }
      } catch (SocketException closed) {
        // the server may close its side once it has answered; the answer is read below
      }
      String answer = readAll(socket.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 413");
      assertThat(errorOf(answer).path("code").asText()).isEqualTo("REQUEST_TOO_LARGE");
    }
    assertThat(app.api().get("/ready").status()).isEqualTo(200);
  }

  @Test
  void aConnectionThatKeepsAskingInTimeIsKeptOpen() throws Exception {
    try (Socket socket = connect()) {
      for (int i = 0; i < 3; i++) {
        socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(readResponse(socket.getInputStream())).startsWith("HTTP/1.1 200");
        LockSupport.parkNanos(HEAD_TIMEOUT.dividedBy(2).toNanos());
      }
    }
  }

  /** Twice the idle timeout's worth of tokens: the answer starts with whitespace, then the turn. */
  @Test
  void aTurnAskedForAsJsonOutlastsTheIdleTimeout() throws Exception {
    app.mock().reconfigure(TestColloquy.fastMock().withTokens(SLOW_TOKENS)
        .withDelays(Duration.ofMillis(100), Duration.ofMillis(100)));
    Api.Response answer = app.api().post("/v1/sessions/" + app.api().openSession() + "/turns", Api.turn("take your time"));
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.contentType()).isEqualTo("application/json");
    assertThat(answer.body()).startsWith(" ");
    JsonNode turn = answer.json();
    assertThat(turn.path("status").asText()).isEqualTo("completed");
    assertThat(turn.path("text").asText()).isEqualTo(TestColloquy.fastMock().text(SLOW_TOKENS));
  }

  @Test
  void aLongTurnThatFailsAfterItsAnswerStartedSaysSoInTheBody() throws Exception {
    app.mock().reconfigure(TestColloquy.fastMock().withTokens(SLOW_TOKENS).withDelays(Duration.ofMillis(100), Duration.ofMillis(100))
        .failing(FailureMode.MID_STREAM, TestColloquy.MODEL).withFailAfterTokens(SLOW_TOKENS / 2 + 10));
    Api.Response answer = app.api().post("/v1/sessions/" + app.api().openSession() + "/turns", Api.turn("take your time"));
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    JsonNode error = answer.json().path("error");
    assertThat(error.path("code").asText()).isNotBlank();
    assertThat(error.path("message").asText()).isNotBlank();
    assertThat(error.path("trace_id").asText()).hasSize(32);
  }

  private static byte[] head(String method, String path, int contentLength) {
    return (method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + app.api().apiKey()
        + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] uploadHead(String lengthHeader) {
    return ("POST /v1/knowledge/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + app.api().apiKey()
        + "\r\nContent-Type: multipart/form-data; boundary=" + BOUNDARY + "\r\n" + lengthHeader + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] chunk(String data) {
    return (Integer.toHexString(data.length()) + "\r\n" + data + "\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** The error object of a whole response read from a socket. */
  private static JsonNode errorOf(String response) throws IOException {
    return Api.JSON.readTree(response.substring(response.indexOf("\r\n\r\n") + 4)).path("error");
  }

  private static Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", app.colloquy().port());
    socket.setSoTimeout((int) Duration.ofSeconds(20).toMillis());
    return socket;
  }

  /** Sends one byte per interval until done or the server closes; the bytes sent. */
  private static int trickle(Socket socket, byte[] bytes, Duration interval) throws IOException {
    OutputStream out = socket.getOutputStream();
    InputStream in = socket.getInputStream();
    for (int i = 0; i < bytes.length; i++) {
      try {
        out.write(bytes[i]);
        out.flush();
      } catch (SocketException closed) {
        return i;
      }
      long until = System.nanoTime() + interval.toNanos();
      while (System.nanoTime() < until) {
        if (in.available() == 0 && closedByPeer(socket)) {
          return i + 1;
        }
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
    }
    return bytes.length;
  }

  /** Whether the peer has closed: a read that would block times out, one on a closed socket ends. */
  private static boolean closedByPeer(Socket socket) throws IOException {
    int timeout = socket.getSoTimeout();
    socket.setSoTimeout(1);
    try {
      return socket.getInputStream().read() < 0;
    } catch (java.net.SocketTimeoutException open) {
      return false;
    } catch (SocketException reset) {
      return true;
    } finally {
      socket.setSoTimeout(timeout);
    }
  }

  private static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      in.transferTo(bytes);
    } catch (SocketException reset) {
      // what arrived before the reset is the answer
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** One response with a Content-Length body, read from a connection that stays open. */
  private static String readResponse(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head);
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).strip());
      }
    }
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }
}
