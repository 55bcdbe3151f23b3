package dev.colloquy.http.web;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.http.Errors;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.RemoteAddress;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code GET /web/dev-key}: the development tenant's key, so the web app can offer "use the
 * development key" on the sign-in page. It is answered only when all of these hold, and is 404
 * {@code NOT_FOUND} otherwise, as a path that does not exist:
 *
 * <ul>
 *   <li>the node runs in development and wrote the key file ({@code <data dir>/dev-api-key});
 *   <li>the connection comes from this machine (loopback): a node reachable from the network, e.g.
 *       in a container with {@code COLLOQUY_HTTP_HOST=0.0.0.0}, never hands it out;
 *   <li>the {@code Host} is a loopback name ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}),
 *       so a page of another site that rebinds its DNS name to 127.0.0.1 cannot read it;
 *   <li>a browser says the request comes from the app's own origin ({@code Sec-Fetch-Site} absent,
 *       {@code same-origin} or {@code none}); another origin's script could not read the answer
 *       anyway, since no CORS header is sent.
 * </ul>
 */
public final class DevKeyOffer extends AllDirectives {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Optional<Path> keyFile;

  private DevKeyOffer(Optional<Path> keyFile) {
    this.keyFile = keyFile;
  }

  /** Offers the key written to {@code keyFile} (development only). */
  public static DevKeyOffer of(Path keyFile) {
    return new DevKeyOffer(Optional.of(keyFile));
  }

  /** Offers nothing (production). */
  public static DevKeyOffer none() {
    return new DevKeyOffer(Optional.empty());
  }

  Route route() {
    return extractRequest(request -> complete(answer(request)));
  }

  private HttpResponse answer(HttpRequest request) {
    Optional<String> key = keyFile.filter(file -> fromThisMachine(request)).flatMap(DevKeyOffer::read);
    if (key.isEmpty()) {
      return Errors.response(StatusCodes.NOT_FOUND, ErrorCode.NOT_FOUND.name(),
          "The development key is offered only by a development server to a browser on the same machine",
          newTraceId()).addHeader(RawHeader.create("Cache-Control", "no-store"));
    }
    try {
      return HttpResponse.create()
          .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
              JSON.writeValueAsString(Map.of("api_key", key.get()))))
          .addHeader(RawHeader.create("Cache-Control", "no-store"));
    } catch (IOException e) {
      throw new IllegalStateException("A string map is always JSON", e);
    }
  }

  static boolean fromThisMachine(HttpRequest request) {
    boolean loopbackPeer = request.getAttribute(AttributeKeys.remoteAddress)
        .flatMap(RemoteAddress::getAddress)
        .map(InetAddress::isLoopbackAddress)
        .orElse(false);
    boolean loopbackHost = request.getHeader("Host").map(HttpHeader::value).map(DevKeyOffer::isLoopbackName).orElse(false);
    String site = request.getHeader("Sec-Fetch-Site").map(HttpHeader::value).orElse("same-origin");
    return loopbackPeer && loopbackHost && (site.equals("same-origin") || site.equals("none"));
  }

  static boolean isLoopbackName(String host) {
    String name = host.toLowerCase(Locale.ROOT).replaceFirst(":\\d+$", "");
    return name.equals("localhost") || name.equals("[::1]") || name.matches("127(\\.\\d{1,3}){3}");
  }

  private static Optional<String> read(Path file) {
    try {
      String key = Files.readString(file, StandardCharsets.US_ASCII).strip();
      return key.isEmpty() ? Optional.empty() : Optional.of(key);
    } catch (IOException missing) {
      return Optional.empty();
    }
  }

  private static String newTraceId() {
    byte[] bytes = new byte[16];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
