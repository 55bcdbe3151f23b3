package dev.colloquy.ingestion.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.engine.model.EmbeddingModel;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Embeddings from an OpenAI-compatible endpoint: {@code POST {baseUrl}/embeddings} with {@code
 * encoding_format = float}, in batches. Vectors are normalized to unit length. A failed call, an
 * error status or a vector of the wrong dimension is an {@link IngestionException} with code
 * EMBEDDING_FAILED. Blocking; thread-safe.
 */
public final class OpenAiCompatibleEmbeddingModel implements EmbeddingModel {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI endpoint;
  private final Optional<String> apiKey;
  private final String model;
  private final int dimensions;
  private final int batchSize;
  private final Duration timeout;
  private final HttpClient http;

  /**
   * @param baseUrl the API root, e.g. {@code https://api.openai.com/v1} or {@code http://localhost:11434/v1}
   * @param apiKey sent as a bearer token when present
   * @param model the embedding model's name
   * @param dimensions the dimension the model produces (checked on every answer)
   * @param batchSize most texts per request
   * @param timeout for connecting and for each request
   */
  public OpenAiCompatibleEmbeddingModel(
      String baseUrl, Optional<String> apiKey, String model, int dimensions, int batchSize, Duration timeout) {
    if (dimensions <= 0 || batchSize <= 0) {
      throw new IllegalArgumentException("dimensions and batchSize must be positive");
    }
    this.endpoint = URI.create(baseUrl.replaceAll("/+$", "") + "/embeddings");
    this.apiKey = apiKey;
    this.model = model;
    this.dimensions = dimensions;
    this.batchSize = batchSize;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public String name() {
    return model;
  }

  @Override
  public int dimensions() {
    return dimensions;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (int start = 0; start < texts.size(); start += batchSize) {
      vectors.addAll(embedBatch(texts.subList(start, Math.min(texts.size(), start + batchSize))));
    }
    return vectors;
  }

  private List<float[]> embedBatch(List<String> batch) {
    HttpResponse<String> response = send(requestBody(batch));
    if (response.statusCode() / 100 != 2) {
      throw failed("the embeddings endpoint answered " + response.statusCode() + ": " + abbreviate(response.body()));
    }
    return vectorsOf(response.body(), batch.size());
  }

  private String requestBody(List<String> batch) {
    ObjectNode body = JSON.createObjectNode().put("model", model).put("encoding_format", "float");
    batch.forEach(text -> body.withArray("input").add(text.isBlank() ? " " : text));
    return body.toString();
  }

  private HttpResponse<String> send(String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    apiKey.ifPresent(key -> request.header("Authorization", "Bearer " + key));
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IngestionException(Code.EMBEDDING_FAILED, "the embeddings endpoint " + endpoint + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed("interrupted while waiting for the embeddings endpoint");
    }
  }

  private List<float[]> vectorsOf(String body, int expected) {
    JsonNode data;
    try {
      data = JSON.readTree(body).path("data");
    } catch (IOException e) {
      throw failed("the embeddings endpoint answered something that is not JSON");
    }
    if (!data.isArray() || data.size() != expected) {
      throw failed("the embeddings endpoint returned " + data.size() + " vectors for " + expected + " texts");
    }
    float[][] ordered = new float[expected][];
    for (int position = 0; position < expected; position++) {
      JsonNode item = data.get(position);
      int index = item.path("index").asInt(position);
      JsonNode embedding = item.path("embedding");
      if (index < 0 || index >= expected || !embedding.isArray() || embedding.size() != dimensions) {
        throw failed("the embeddings endpoint returned a vector of " + embedding.size() + " dimensions; expected " + dimensions);
      }
      float[] vector = new float[dimensions];
      for (int i = 0; i < dimensions; i++) {
        vector[i] = (float) embedding.get(i).asDouble();
      }
      ordered[index] = Vectors.normalized(vector);
    }
    if (Arrays.stream(ordered).anyMatch(vector -> vector == null)) {
      throw failed("the embeddings endpoint returned duplicate indexes");
    }
    return List.of(ordered);
  }

  private static IngestionException failed(String message) {
    return new IngestionException(Code.EMBEDDING_FAILED, message);
  }

  private static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }
}
