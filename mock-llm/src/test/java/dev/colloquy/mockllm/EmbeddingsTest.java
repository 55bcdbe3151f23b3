package dev.colloquy.mockllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.openai.client.OpenAIClient;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.Embedding;
import com.openai.models.embeddings.EmbeddingCreateParams;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddingsTest {
  private static MockLlmServer server;
  private static OpenAIClient client;

  @BeforeAll
  static void start() {
    server = MockLlmServer.start(MockLlmSettings.defaults());
    client = OpenAiClients.to(server, 0);
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  @Test
  void embedsABatchAsUnitVectorsWithUsage() {
    CreateEmbeddingResponse response =
        client
            .embeddings()
            .create(
                EmbeddingCreateParams.builder()
                    .model("mock-embedding")
                    .inputOfArrayOfStrings(List.of("The cat sat.", "Refund policy for orders"))
                    .build());

    assertThat(response.data()).extracting(Embedding::index).containsExactly(0L, 1L);
    assertThat(response.data())
        .allSatisfy(
            embedding -> {
              assertThat(embedding.embedding()).hasSize(EmbeddingEndpoint.DEFAULT_DIMENSIONS);
              assertThat(norm(embedding.embedding())).isCloseTo(1.0, within(1e-4));
            });
    assertThat(response.usage().promptTokens()).isEqualTo(7);
    assertThat(response.usage().totalTokens()).isEqualTo(7);
  }

  @Test
  void sameTextSameVectorWhateverTheEncoding() {
    List<Float> asBase64 = embed("refund policy", EmbeddingCreateParams.EncodingFormat.BASE64);
    List<Float> asFloats = embed("refund policy", EmbeddingCreateParams.EncodingFormat.FLOAT);

    assertThat(asBase64).isEqualTo(asFloats);
    assertThat(embed("refund policy", EmbeddingCreateParams.EncodingFormat.FLOAT))
        .isEqualTo(asFloats);
  }

  @Test
  void textsSharingWordsAreNeighbours() {
    List<Float> query =
        embed("what is the refund policy", EmbeddingCreateParams.EncodingFormat.FLOAT);
    List<Float> related =
        embed("Our refund policy: 30 days", EmbeddingCreateParams.EncodingFormat.FLOAT);
    List<Float> unrelated =
        embed("cats sleep all afternoon", EmbeddingCreateParams.EncodingFormat.FLOAT);

    assertThat(dot(query, related)).isGreaterThan(dot(query, unrelated) + 0.3);
  }

  @Test
  void honoursRequestedDimensions() {
    CreateEmbeddingResponse response =
        client
            .embeddings()
            .create(
                EmbeddingCreateParams.builder()
                    .model("mock-embedding")
                    .input("short")
                    .dimensions(8)
                    .build());

    assertThat(response.data())
        .singleElement()
        .satisfies(e -> assertThat(e.embedding()).hasSize(8));
  }

  private static List<Float> embed(String text, EmbeddingCreateParams.EncodingFormat format) {
    return client
        .embeddings()
        .create(
            EmbeddingCreateParams.builder()
                .model("mock-embedding")
                .input(text)
                .encodingFormat(format)
                .build())
        .data()
        .getFirst()
        .embedding();
  }

  private static double norm(List<Float> vector) {
    return Math.sqrt(dot(vector, vector));
  }

  private static double dot(List<Float> a, List<Float> b) {
    double sum = 0;
    for (int i = 0; i < a.size(); i++) {
      sum += a.get(i) * b.get(i);
    }
    return sum;
  }
}
