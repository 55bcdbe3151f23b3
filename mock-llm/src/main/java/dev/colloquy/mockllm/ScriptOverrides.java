package dev.colloquy.mockllm;

import java.time.Duration;
import java.util.Optional;

/**
 * Per-request changes to the script, for tests that need one odd request without reconfiguring the
 * server. They come from the headers {@code X-Mock-Tokens}, {@code X-Mock-Ttft-Ms} and {@code
 * X-Mock-Delay-Ms} (inter-token delay), or from the request's {@code metadata} entries {@code
 * mock_tokens}, {@code mock_ttft_ms} and {@code mock_delay_ms}; a header wins over metadata.
 */
record ScriptOverrides(
    Optional<Integer> tokens,
    Optional<Duration> timeToFirstToken,
    Optional<Duration> interTokenDelay) {

  static final ScriptOverrides NONE =
      new ScriptOverrides(Optional.empty(), Optional.empty(), Optional.empty());

  static ScriptOverrides of(
      Optional<String> tokens, Optional<String> ttftMillis, Optional<String> delayMillis) {
    return new ScriptOverrides(
        tokens.map(value -> nonNegative("tokens", value)),
        ttftMillis.map(value -> Duration.ofMillis(nonNegative("ttft_ms", value))),
        delayMillis.map(value -> Duration.ofMillis(nonNegative("delay_ms", value))));
  }

  ScriptOverrides orElse(ScriptOverrides fallback) {
    return new ScriptOverrides(
        tokens.or(fallback::tokens),
        timeToFirstToken.or(fallback::timeToFirstToken),
        interTokenDelay.or(fallback::interTokenDelay));
  }

  MockLlmSettings applyTo(MockLlmSettings settings) {
    return settings
        .withTokens(tokens.orElse(settings.tokens()))
        .withTimeToFirstToken(timeToFirstToken.orElse(settings.timeToFirstToken()))
        .withInterTokenDelay(interTokenDelay.orElse(settings.interTokenDelay()));
  }

  private static int nonNegative(String name, String value) {
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed >= 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // Reported below, with the rest of the invalid values.
    }
    throw InvalidRequest.invalid(
        "mock_" + name,
        "Mock override '" + name + "' must be a non-negative integer, was '" + value + "'.");
  }
}
