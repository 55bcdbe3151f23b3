package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import org.apache.pekko.NotUsed;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/** {@code POST /v1/chat/completions}: streamed or whole, served or failed as the gate decides. */
final class ChatCompletionEndpoint {
  private final RequestGate gate;
  private final MockLlmStats stats;
  private final ModelCatalog models;
  private final RawScripts rawScripts;
  private final Materializer materializer;

  ChatCompletionEndpoint(
      RequestGate gate,
      MockLlmStats stats,
      ModelCatalog models,
      RawScripts rawScripts,
      Materializer materializer) {
    this.gate = gate;
    this.stats = stats;
    this.models = models;
    this.rawScripts = rawScripts;
    this.materializer = materializer;
  }

  CompletionStage<HttpResponse> respond(HttpRequest http, String body) {
    stats.requestReceived();
    if (http.protocol().value().equals("HTTP/2.0")) {
      stats.http2RequestReceived();
    }
    ChatRequest request;
    JsonNode root;
    try {
      root = Json.parseObject(body);
      request = ChatRequest.parse(root).withOverrides(headerOverrides(http));
      stats.chatRequestAccepted(root, http.getHeader("Authorization").map(header -> header.value()).orElse(""));
    } catch (InvalidRequest invalid) {
      return now(OpenAiErrors.badRequest(invalid));
    }
    models.saw(request.model());
    RequestGate.Admission admission = gate.admit(request.model());
    return switch (admission.verdict()) {
      case WARM_UP_REJECTION -> now(OpenAiErrors.rateLimited("mock-llm: warm-up rejection"));
      case MODEL_FAILURE -> fail(request, admission.settings());
      case SERVE -> {
        ChatScript script = ChatScript.plan(request, admission.settings(), false);
        yield rawScripts.find(root).filter(tokens -> request.stream())
            .map(tokens -> now(streamed(RawScripts.stream(script, tokens, stats))))
            .orElseGet(() -> serve(script));
      }
    };
  }

  private CompletionStage<HttpResponse> fail(ChatRequest request, MockLlmSettings settings) {
    String message =
        "mock-llm: model '" + request.model() + "' fails with " + settings.failureMode();
    return switch (settings.failureMode()) {
      case HTTP_429 -> now(OpenAiErrors.rateLimited(message));
      case MID_STREAM, MID_STREAM_DISCONNECT ->
          request.stream()
              ? serve(ChatScript.plan(request, settings, true))
              : now(OpenAiErrors.serverError(message));
      case HTTP_500 -> now(OpenAiErrors.serverError(message));
    };
  }

  private CompletionStage<HttpResponse> serve(ChatScript script) {
    return script.request().stream() ? now(streamed(script)) : whole(script);
  }

  private HttpResponse streamed(ChatScript script) {
    return streamed(ChatStream.of(script, stats));
  }

  private static HttpResponse streamed(Source<ByteString, NotUsed> events) {
    return HttpResponse.create()
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(), events));
  }

  /** Answers after the time streaming would have taken, so latency tests mean the same. */
  private CompletionStage<HttpResponse> whole(ChatScript script) {
    return Source.lazySingle(() -> wholeNow(script))
        .initialDelay(script.generationTime())
        .runWith(Sink.head(), materializer);
  }

  private HttpResponse wholeNow(ChatScript script) {
    stats.tokensSent(script.tokens());
    return HttpResponse.create()
        .withEntity(
            ContentTypes.APPLICATION_JSON, Json.write(ChatCompletionWire.completion(script)));
  }

  private static ScriptOverrides headerOverrides(HttpRequest http) {
    return ScriptOverrides.of(
        header(http, "X-Mock-Tokens"),
        header(http, "X-Mock-Ttft-Ms"),
        header(http, "X-Mock-Delay-Ms"));
  }

  private static Optional<String> header(HttpRequest http, String name) {
    return http.getHeader(name).map(HttpHeader::value);
  }

  private static CompletionStage<HttpResponse> now(HttpResponse response) {
    return CompletableFuture.completedFuture(response);
  }
}
