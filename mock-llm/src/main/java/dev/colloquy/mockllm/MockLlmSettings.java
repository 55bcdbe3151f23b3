package dev.colloquy.mockllm;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What the mock model answers and how it misbehaves.
 *
 * @param tokens how many tokens a chat completion streams (a request's {@code max_tokens} caps it)
 * @param timeToFirstToken delay before the first chunk (or before a non-streaming response)
 * @param interTokenDelay delay between consecutive tokens
 * @param failingModels requests naming one of these models fail as {@code failureMode} says
 * @param failureMode how requests for a failing model fail
 * @param failAfterTokens tokens sent before a mid-stream failure
 * @param failFirstRequests the first N chat or embedding requests after (re)configuration, for any
 *     model, get 429 with {@code Retry-After: 0}, so a client's retry can be tested
 * @param tokenText the text of token {@code i}: every {@code {i}} is replaced by {@code i}; the
 *     default {@code "tok{i} "} streams {@code "tok0 tok1 tok2 "}. Any characters are allowed,
 *     including {@code \r} and {@code \n}, since chunks carry them JSON-escaped.
 */
public record MockLlmSettings(
    int tokens,
    Duration timeToFirstToken,
    Duration interTokenDelay,
    Set<String> failingModels,
    FailureMode failureMode,
    int failAfterTokens,
    int failFirstRequests,
    String tokenText) {

  public static final String DEFAULT_TOKEN_TEXT = "tok{i} ";

  public MockLlmSettings {
    requireNonNegative("tokens", tokens);
    requireNonNegative("timeToFirstToken", timeToFirstToken);
    requireNonNegative("interTokenDelay", interTokenDelay);
    failingModels = Set.copyOf(failingModels);
    Objects.requireNonNull(failureMode, "failureMode");
    requireNonNegative("failAfterTokens", failAfterTokens);
    requireNonNegative("failFirstRequests", failFirstRequests);
    Objects.requireNonNull(tokenText, "tokenText");
  }

  /** 16 tokens, 50 ms to the first, 10 ms apart; nothing fails. */
  public static MockLlmSettings defaults() {
    return new MockLlmSettings(
        16,
        Duration.ofMillis(50),
        Duration.ofMillis(10),
        Set.of(),
        FailureMode.HTTP_500,
        2,
        0,
        DEFAULT_TOKEN_TEXT);
  }

  public MockLlmSettings withTokens(int tokens) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  public MockLlmSettings withTimeToFirstToken(Duration timeToFirstToken) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  public MockLlmSettings withInterTokenDelay(Duration interTokenDelay) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  /** Both delays at once; zero for both makes the mock answer as fast as it can. */
  public MockLlmSettings withDelays(Duration timeToFirstToken, Duration interTokenDelay) {
    return withTimeToFirstToken(timeToFirstToken).withInterTokenDelay(interTokenDelay);
  }

  public MockLlmSettings withFailingModels(Set<String> failingModels) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  public MockLlmSettings withFailureMode(FailureMode failureMode) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  /** Makes {@code models} fail as {@code mode} says. */
  public MockLlmSettings failing(FailureMode mode, String... models) {
    return withFailureMode(mode).withFailingModels(Set.of(models));
  }

  public MockLlmSettings withFailAfterTokens(int failAfterTokens) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  public MockLlmSettings withFailFirstRequests(int failFirstRequests) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  public MockLlmSettings withTokenText(String tokenText) {
    return new MockLlmSettings(
        tokens,
        timeToFirstToken,
        interTokenDelay,
        failingModels,
        failureMode,
        failAfterTokens,
        failFirstRequests,
        tokenText);
  }

  /** The text of token {@code index}. */
  public String token(int index) {
    return tokenText.replace("{i}", Integer.toString(index));
  }

  /** The whole text of a completion of {@code count} tokens, as a client reassembles it. */
  public String text(int count) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < count; i++) {
      text.append(token(i));
    }
    return text.toString();
  }

  boolean fails(String model) {
    return failingModels.contains(model);
  }

  private static void requireNonNegative(String name, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
  }

  private static void requireNonNegative(String name, Duration value) {
    if (Objects.requireNonNull(value, name).isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
  }
}
