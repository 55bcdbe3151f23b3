package dev.colloquy.mockllm;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;

/** The official client, pointed at the mock, as the engine uses it. */
final class OpenAiClients {
  private OpenAiClients() {}

  static OpenAIClient to(MockLlmServer server, int maxRetries) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(server.baseUrl())
        .apiKey("mock-key")
        .maxRetries(maxRetries)
        .build();
  }
}
