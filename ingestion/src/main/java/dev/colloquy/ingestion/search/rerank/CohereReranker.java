package dev.colloquy.ingestion.search.rerank;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.ingestion.search.Reranker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Cohere-compatible rerank client ({@code POST {baseUrl}/rerank}, the request and response shape of
 * Cohere's v1 and v2 rerank APIs, also served by vLLM, Jina and others): the query and the documents
 * go out with {@code top_n}, and each result's {@code relevance_score} is mapped back onto the
 * document at its {@code index}. Documents the endpoint did not score (beyond {@code top_n}) get
 * relevance {@value #UNSCORED}, so they keep their given order below the scored ones.
 *
 * <p>Retrieval never fails because the reranker did: a connection failure, a timeout, an error
 * status or an answer that is not the expected shape is logged as a warning and answered with no
 * scores, and the caller keeps its own order and relevance. There are no retries: a reranker sits
 * on the path of every answer.
 *
 * <p>The timeout covers the whole call, connection to last byte. Blocking; thread-safe. The API key is sent only as a bearer token and never logged.
 */
public final class CohereReranker implements Reranker {

  /** The relevance of a document the endpoint did not score. */
  public static final double UNSCORED = 0.0;

  private static final Logger LOG = LoggerFactory.getLogger(CohereReranker.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KnowledgeSettings.Rerank settings;
  private final int topN;
  private final URI endpoint;
  private final HttpClient http;

  /**
   * @param topN how many of the best documents the endpoint scores (seed 004 §7.1 asks for 8); the others
   *     get relevance {@value #UNSCORED}
   */
  public CohereReranker(KnowledgeSettings.Rerank settings, int topN) {
    if (topN <= 0) {
      throw new IllegalArgumentException("topN must be positive, was " + topN);
    }
    this.settings = settings;
    this.topN = topN;
    this.endpoint = URI.create(settings.baseUrl().replaceAll("/+$", "") + "/rerank");
    this.http = HttpClient.newBuilder().connectTimeout(settings.timeout()).build();
  }

  /** One relevance per document, in the order given; empty when the endpoint failed (already logged). */
  @Override
  public Optional<List<Double>> rerank(String query, List<String> documents) {
    if (documents.isEmpty()) {
      return Optional.of(List.of());
    }
    CompletableFuture<HttpResponse<String>> call =
        http.sendAsync(request(query, documents), HttpResponse.BodyHandlers.ofString());
    try {
      HttpResponse<String> response = call.get(settings.timeout().toNanos(), TimeUnit.NANOSECONDS);
      if (response.statusCode() / 100 != 2) {
        return unavailable("answered HTTP " + response.statusCode() + ": " + sized(response.body()));
      }
      return scores(response.body(), documents.size());
    } catch (TimeoutException e) {
      call.cancel(true);
      return timedOut();
    } catch (ExecutionException e) {
      return e.getCause() instanceof HttpTimeoutException ? timedOut() : unavailable("failed: " + e.getCause());
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      return unavailable("was interrupted");
    }
  }

  private HttpRequest request(String query, List<String> documents) {
    ObjectNode body = JSON.createObjectNode()
        .put("model", settings.model())
        .put("query", query)
        .put("top_n", Math.min(topN, documents.size()));
    documents.forEach(document -> body.withArray("documents").add(document));
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .timeout(settings.timeout())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    settings.apiKey().ifPresent(key -> request.header("Authorization", "Bearer " + key));
    return request.build();
  }

  private Optional<List<Double>> scores(String body, int count) {
    JsonNode results;
    try {
      results = JSON.readTree(body).path("results");
    } catch (IOException e) {
      return unavailable("answered something that is not JSON: " + sized(body));
    }
    if (!results.isArray()) {
      return unavailable("answered without a results array: " + sized(body));
    }
    List<Double> scores = new ArrayList<>(Collections.nCopies(count, UNSCORED));
    for (JsonNode result : results) {
      JsonNode index = result.path("index");
      JsonNode score = result.path("relevance_score");
      if (!index.canConvertToInt() || index.asInt() < 0 || index.asInt() >= count || !score.isNumber()) {
        return unavailable("answered a result that names no document of " + count + " or has no score: " + sized(result.toString()));
      }
      scores.set(index.asInt(), score.asDouble());
    }
    return Optional.of(List.copyOf(scores));
  }

  private Optional<List<Double>> timedOut() {
    return unavailable("did not answer within " + settings.timeout().toMillis() + " ms");
  }

  private Optional<List<Double>> unavailable(String why) {
    LOG.warn("The reranker at {} {}; keeping the fused order", endpoint, why);
    return Optional.empty();
  }

  /** The answer's size only: it may quote the query and passages, which no log line may carry. */
  private static String sized(String text) {
    return "(" + text.length() + " characters)";
  }

  @Override
  public String toString() {
    return "CohereReranker[" + settings + "]";
  }
}
