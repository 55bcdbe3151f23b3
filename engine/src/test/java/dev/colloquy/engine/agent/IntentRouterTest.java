package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.colloquy.engine.domain.AgentTrace;
import dev.colloquy.engine.domain.Intent;
import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import dev.colloquy.engine.model.ModelException;
import dev.colloquy.engine.model.TokenUsage;
import dev.colloquy.engine.observe.TurnLogContext;
import dev.colloquy.engine.tenant.TenantConfig;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The router as a function of the turn: its result, and its lines written with the turn's log context. */
class IntentRouterTest {

  private static final Map<String, String> TURN = TurnLogContext.of("trace-1", "clinic", "s1", "t1");

  private final Logger logger = (Logger) LoggerFactory.getLogger(IntentRouter.class);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  @BeforeEach
  void capture() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
  }

  /** A model that answers every call on the caller's thread, as {@code answer} says. */
  private static ChatModel model(Consumer<ChatListener> answer) {
    return new ChatModel() {
      @Override
      public String provider() {
        return "scripted";
      }

      @Override
      public ChatStream stream(ChatRequest request, ChatListener listener) {
        answer.accept(listener);
        return () -> {};
      }
    };
  }

  /** A model whose answer to every call is {@code text}, for 40 prompt tokens and 1 completion token. */
  private static ChatModel answering(String text) {
    return model(listener -> {
      listener.onToken(text);
      listener.onComplete(new TokenUsage(40, 1));
    });
  }

  private static IntentRouter.Routed route(String message, Optional<ChatModel> model) throws Exception {
    return IntentRouter.route("clinic", message, model, "m", AgentServices.fixed(TenantConfig.NO_CHANGE), TURN)
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void theModelsIntentIsTakenWithItsCall() throws Exception {
    IntentRouter.Routed routed = route("hi there", Optional.of(answering("conversational")));

    assertThat(routed.intent()).isEqualTo(Intent.CONVERSATIONAL);
    assertThat(routed.source()).isEqualTo(AgentTrace.BY_MODEL);
    assertThat(routed.call().usage().promptTokens()).isEqualTo(40);
  }

  @Test
  void aFailedCallIsRoutedByTheOfflineRulesAndSaidSoWithTheTurnsContext() throws Exception {
    IntentRouter.Routed routed = route("What does a cleaning cost?", Optional.of(model(listener ->
        listener.onError(new ModelException(ModelException.UNAVAILABLE, "down")))));

    assertThat(routed.source()).isEqualTo(AgentTrace.OFFLINE);
    assertThat(routed.intent()).isEqualTo(Intent.DOMAIN_QUERY);
    assertThat(routed.call()).isNull();
    assertThat(lines.list).singleElement().satisfies(line -> {
      assertThat(line.getFormattedMessage())
          .isEqualTo("The model did not route the message (ModelException); the offline rules do");
      assertThat(line.getMDCPropertyMap()).containsEntry("turn_id", "t1").containsEntry("trace_id", "trace-1");
    });
  }

  @Test
  void anAnswerThatIsNoIntentIsRoutedByTheOfflineRulesAndBilled() throws Exception {
    IntentRouter.Routed routed = route("hi there", Optional.of(answering("maybe")));

    assertThat(routed.source()).isEqualTo(AgentTrace.OFFLINE);
    assertThat(routed.call()).isNotNull();
    assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly("The model's routing answer is not an intent; the offline rules route the message");
  }

  @Test
  void withoutAModelTheOfflineRulesRouteAndNothingIsLogged() throws Exception {
    IntentRouter.Routed routed = route("hi there", Optional.empty());

    assertThat(routed.source()).isEqualTo(AgentTrace.OFFLINE);
    assertThat(routed.config()).isEqualTo(TenantConfig.NO_CHANGE);
    assertThat(lines.list).isEmpty();
  }
}
