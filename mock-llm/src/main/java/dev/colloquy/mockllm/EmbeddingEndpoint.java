package dev.colloquy.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;

/**
 * {@code POST /v1/embeddings}: {@link BagOfWordsEmbedding} vectors of {@value #DEFAULT_DIMENSIONS}
 * dimensions (or the request's {@code dimensions}), as floats or, for {@code encoding_format:
 * base64}, as base64 of little-endian float32 like OpenAI sends them.
 */
final class EmbeddingEndpoint {
  static final int DEFAULT_DIMENSIONS = 384;

  record EmbeddingRequest(String model, List<String> inputs, int dimensions, boolean base64) {
    static EmbeddingRequest parse(JsonNode root) {
      return new EmbeddingRequest(
          Json.requiredText(root, "model"),
          inputs(root),
          Json.optionalPositiveInt(root, "dimensions").orElse(DEFAULT_DIMENSIONS),
          root.path("encoding_format").asText("float").equals("base64"));
    }

    /** A string or an array; token arrays are embedded by their JSON text. */
    private static List<String> inputs(JsonNode root) {
      JsonNode input = root.get("input");
      if (input == null || input.isNull()) {
        throw InvalidRequest.missing("input");
      }
      if (input.isTextual()) {
        return List.of(input.asText());
      }
      if (!input.isArray() || input.isEmpty()) {
        throw InvalidRequest.invalid("input", "'input' must be a string or a non-empty array.");
      }
      List<String> inputs = new ArrayList<>();
      input.forEach(item -> inputs.add(item.isTextual() ? item.asText() : item.toString()));
      return inputs;
    }
  }

  record EmbeddingList(String object, List<EmbeddingItem> data, String model, Usage usage) {}

  /** {@code embedding} is a float array or a base64 string, as the request asked. */
  record EmbeddingItem(String object, int index, Object embedding) {}

  record Usage(int promptTokens, int totalTokens) {}

  private final RequestGate gate;
  private final MockLlmStats stats;
  private final ModelCatalog models;

  EmbeddingEndpoint(RequestGate gate, MockLlmStats stats, ModelCatalog models) {
    this.gate = gate;
    this.stats = stats;
    this.models = models;
  }

  HttpResponse respond(String body) {
    stats.requestReceived();
    EmbeddingRequest request;
    try {
      request = EmbeddingRequest.parse(Json.parseObject(body));
    } catch (InvalidRequest invalid) {
      return OpenAiErrors.badRequest(invalid);
    }
    models.saw(request.model());
    RequestGate.Admission admission = gate.admit(request.model());
    return switch (admission.verdict()) {
      case WARM_UP_REJECTION -> OpenAiErrors.rateLimited("mock-llm: warm-up rejection");
      case MODEL_FAILURE -> fail(request, admission.settings().failureMode());
      case SERVE ->
          HttpResponse.create()
              .withEntity(ContentTypes.APPLICATION_JSON, Json.write(embed(request)));
    };
  }

  /** Embeddings have no stream to cut, so the mid-stream modes answer 500. */
  private static HttpResponse fail(EmbeddingRequest request, FailureMode mode) {
    String message = "mock-llm: model '" + request.model() + "' fails with " + mode;
    return mode == FailureMode.HTTP_429
        ? OpenAiErrors.rateLimited(message)
        : OpenAiErrors.serverError(message);
  }

  private static EmbeddingList embed(EmbeddingRequest request) {
    List<EmbeddingItem> data = new ArrayList<>();
    int words = 0;
    for (String input : request.inputs()) {
      float[] vector = BagOfWordsEmbedding.embed(input, request.dimensions());
      data.add(
          new EmbeddingItem("embedding", data.size(), request.base64() ? base64(vector) : vector));
      words += Words.count(input);
    }
    return new EmbeddingList("list", data, request.model(), new Usage(words, words));
  }

  private static String base64(float[] vector) {
    ByteBuffer bytes =
        ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(vector);
    return Base64.getEncoder().encodeToString(bytes.array());
  }
}
