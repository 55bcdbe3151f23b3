package dev.colloquy.mockllm;

/** A request the mock refuses with 400, carrying OpenAI's {@code param} and {@code code}. */
final class InvalidRequest extends RuntimeException {
  private final String param;
  private final String code;

  private InvalidRequest(String message, String param, String code) {
    // Expected client mistakes: a stack trace would say nothing.
    super(message, null, false, false);
    this.param = param;
    this.code = code;
  }

  static InvalidRequest unparsable() {
    return new InvalidRequest(
        "We could not parse the JSON body of your request. The body must be a JSON object.",
        null,
        "invalid_json");
  }

  static InvalidRequest missing(String param) {
    return new InvalidRequest(
        "Missing required parameter: '" + param + "'.", param, "missing_required_parameter");
  }

  static InvalidRequest invalid(String param, String message) {
    return new InvalidRequest(message, param, "invalid_value");
  }

  String param() {
    return param;
  }

  String code() {
    return code;
  }
}
