package dev.colloquy.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.colloquy.engine.domain.ErrorCode;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;

/**
 * The one JSON mapping of the HTTP API: snake_case names, ISO-8601 times, and the one writer every
 * JSON body goes through. Bodies are records named for what they hold; fields keep their order.
 * Reading is strict about duplicate keys: {@code {"message":"a","message":"b"}} is refused rather
 * than read as whichever value a parser happens to keep, since a proxy or a signature check in
 * front of the API may have read the other one.
 */
public final class Json {

  private static final Pattern DUPLICATE_FIELD = Pattern.compile("^Duplicate field '(.*)'");

  /** Deeper bodies are refused while parsing (400 MALFORMED_JSON): no request of the API nests near this. */
  static final int MAX_NESTING_DEPTH = 100;
  /** Digits of the longest number a body may hold; a longer one is refused before it is converted. */
  static final int MAX_NUMBER_LENGTH = 1000;

  public static final ObjectMapper MAPPER =
      new ObjectMapper(JsonFactory.builder()
              .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
              .streamReadConstraints(StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_NESTING_DEPTH)
                  .maxNumberLength(MAX_NUMBER_LENGTH)
                  .build())
              .build())
          .registerModule(new JavaTimeModule())
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private Json() {}

  /** The key a body named twice, when that is why it could not be read. */
  public static Optional<String> duplicateKey(JsonProcessingException e) {
    if (!(e instanceof JsonParseException)) {
      return Optional.empty();
    }
    Matcher duplicate = DUPLICATE_FIELD.matcher(String.valueOf(e.getOriginalMessage()));
    return duplicate.find() ? Optional.of(duplicate.group(1)) : Optional.empty();
  }

  /** The refusal of a body that is not valid JSON: a duplicate key gets a code of its own. */
  public static ApiException unreadable(JsonProcessingException e, ErrorCode malformed) {
    return duplicateKey(e)
        .map(key -> new ApiException(ErrorCode.DUPLICATE_JSON_KEY,
            "The request body names the key '" + key + "' more than once"))
        .orElseGet(() -> new ApiException(malformed, "The request body is not valid JSON: " + e.getOriginalMessage()));
  }

  /** One line of JSON: the serializer escapes CR and LF inside strings. */
  public static String write(Object body) {
    try {
      return MAPPER.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static HttpResponse response(StatusCode status, Object body) {
    return HttpResponse.create().withStatus(status)
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, write(body)));
  }
}
