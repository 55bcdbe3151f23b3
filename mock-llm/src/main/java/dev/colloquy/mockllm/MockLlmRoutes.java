package dev.colloquy.mockllm;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/** The OpenAI-compatible routes, plus {@code GET /health}. */
final class MockLlmRoutes extends AllDirectives {
  private final ChatCompletionEndpoint chat;
  private final EmbeddingEndpoint embeddings;
  private final ModelCatalog models;

  MockLlmRoutes(ChatCompletionEndpoint chat, EmbeddingEndpoint embeddings, ModelCatalog models) {
    this.chat = chat;
    this.embeddings = embeddings;
    this.models = models;
  }

  Route route() {
    return concat(
        path(segment("v1").slash("chat").slash("completions"), () -> post(this::chatCompletion)),
        path(segment("v1").slash("embeddings"), () -> post(this::embedding)),
        path(segment("v1").slash("models"), () -> get(this::modelList)),
        path("health", () -> get(() -> complete("OK"))));
  }

  private Route chatCompletion() {
    return extractRequest(
        request ->
            entity(
                Unmarshaller.entityToString(),
                body -> completeWithFuture(chat.respond(request, body))));
  }

  private Route embedding() {
    return entity(Unmarshaller.entityToString(), body -> complete(embeddings.respond(body)));
  }

  private Route modelList() {
    return complete(
        HttpResponse.create().withEntity(ContentTypes.APPLICATION_JSON, Json.write(models.list())));
  }
}
