package dev.colloquy.ingestion.chunk;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatMessage;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a chunk's summary and three hypothetical questions with a chat model (seed 004 §6.3). The
 * seed's prompt asks for a JSON array of three questions; this one asks for the summary in the same
 * call, as one JSON object {@code {"summary": "...", "questions": ["...", "...", "..."]}}. The answer
 * must be exactly that (a Markdown code fence around it is tolerated): a non-blank summary and three
 * non-blank questions. The payload names the generator {@code model:<model name>}.
 *
 * <p>When the model fails, runs past the timeout, answers more than {@value #MAX_ANSWER_CHARS}
 * characters or answers anything else, the chunk gets the {@link OfflineEnricher}'s summary and
 * questions (named as such) and a warning is logged. Blocking: it waits for the whole answer, so run
 * it on a background executor.
 */
public final class ModelEnricher implements ChunkEnricher {

  public static final String GENERATOR_PREFIX = "model:";

  static final int MAX_ANSWER_CHARS = 4_000;
  /** About {@link #MAX_ANSWER_CHARS} in tokens: a longer answer would be refused anyway. */
  static final int MAX_ANSWER_TOKENS = 1_024;
  static final String PROMPT = """
      Given this document chunk, write a summary of it in one or two sentences, and generate exactly 3 \
      questions that a customer support user might ask that this chunk directly answers. Return only a JSON \
      object of this form: {"summary": "...", "questions": ["...", "...", "..."]}. No preamble.

      Section: %s

      Chunk:
      %s""";

  private static final Logger LOG = LoggerFactory.getLogger(ModelEnricher.class);
  private static final ObjectReader JSON = new ObjectMapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final ChatModel model;
  private final String modelName;
  private final Duration timeout;
  private final ChunkEnricher fallback = new OfflineEnricher();

  /**
   * @param model the chat model port (an OpenAI-compatible endpoint in production)
   * @param modelName the model to ask, also named in the payload as {@code model:<modelName>}
   * @param timeout how long one chunk's answer may take, first token to last
   */
  public ModelEnricher(ChatModel model, String modelName, Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    this.model = model;
    this.modelName = modelName;
    this.timeout = timeout;
  }

  /** What the payload names as the generator of this enricher's summaries and questions. */
  public String generator() {
    return GENERATOR_PREFIX + modelName;
  }

  @Override
  public Enrichment enrich(String sectionHeading, String text) {
    Optional<Enrichment> fromModel = answer(sectionHeading, text).flatMap(this::parse);
    return fromModel.orElseGet(() -> fallback.enrich(sectionHeading, text));
  }

  private Optional<String> answer(String sectionHeading, String text) {
    ChatRequest request = new ChatRequest(
        modelName, List.of(ChatMessage.user(PROMPT.formatted(sectionHeading, text))), List.of(), MAX_ANSWER_TOKENS);
    Answer answer = new Answer();
    ChatStream stream = model.stream(request, answer);
    try {
      return Optional.of(answer.text.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      stream.cancel();
      return rejected("did not answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      stream.cancel();
      return rejected("failed: " + Optional.ofNullable(e.getCause().getMessage()).orElse(e.getCause().toString()));
    } catch (InterruptedException e) {
      stream.cancel();
      Thread.currentThread().interrupt();
      return rejected("was interrupted");
    }
  }

  /** Collects one streamed answer; called from the model's thread, read once complete. */
  private static final class Answer implements ChatListener {
    private final StringBuilder tokens = new StringBuilder();
    private final CompletableFuture<String> text = new CompletableFuture<>();

    @Override
    public void onToken(String token) {
      tokens.append(token);
      if (tokens.length() > MAX_ANSWER_CHARS) {
        text.completeExceptionally(new IllegalStateException("the answer ran past " + MAX_ANSWER_CHARS + " characters"));
      }
    }

    @Override
    public void onComplete(TokenUsage usage) {
      text.complete(tokens.toString());
    }

    @Override
    public void onError(ModelException error) {
      text.completeExceptionally(error);
    }
  }

  private Optional<Enrichment> parse(String answer) {
    JsonNode root;
    try {
      root = JSON.readTree(withoutCodeFence(answer.strip()));
    } catch (IOException e) {
      return rejected("answered something that is not JSON: " + sized(answer));
    }
    JsonNode summary = root == null ? null : root.get("summary");
    JsonNode questions = root == null ? null : root.get("questions");
    if (summary == null || !summary.isTextual() || summary.asText().isBlank()
        || questions == null || !questions.isArray() || questions.size() != 3) {
      return rejected("answered JSON without a summary and exactly 3 questions: " + sized(answer));
    }
    List<String> parsed = new ArrayList<>(3);
    for (JsonNode question : questions) {
      if (!question.isTextual() || question.asText().isBlank()) {
        return rejected("answered a question that is not a non-blank string: " + sized(answer));
      }
      parsed.add(question.asText().strip());
    }
    return Optional.of(new Enrichment(summary.asText().strip(), parsed, generator()));
  }

  private static String withoutCodeFence(String answer) {
    if (!answer.startsWith("```") || !answer.endsWith("```") || answer.length() < 6) {
      return answer;
    }
    String inner = answer.substring(3, answer.length() - 3);
    int firstLineEnd = inner.indexOf('\n');
    return firstLineEnd < 0 ? inner : inner.substring(firstLineEnd + 1);
  }

  private <T> Optional<T> rejected(String why) {
    LOG.warn("The enrichment model {} {}; the chunk keeps the offline summary and questions", modelName, why);
    return Optional.empty();
  }

  /** The answer's size only: it may quote the document, which no log line may carry. */
  private static String sized(String text) {
    return "(" + text.length() + " characters)";
  }
}
