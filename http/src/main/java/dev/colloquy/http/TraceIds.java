package dev.colloquy.http;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.AttributeKey;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * One trace id per request, given to the request as an attribute at the top of the route tree, so
 * routes built once read it where they need it: in an error body and in a new turn.
 */
final class TraceIds extends AllDirectives {

  private static final AttributeKey<String> TRACE_ID = AttributeKey.create("colloquy-trace-id", String.class);

  Route assign(Supplier<Route> inner) {
    return mapRequest(request -> request.addAttribute(TRACE_ID, newTraceId()), inner);
  }

  Route traceId(Function<String, Route> inner) {
    return attribute(TRACE_ID, inner);
  }

  static String newTraceId() {
    byte[] bytes = new byte[16];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
