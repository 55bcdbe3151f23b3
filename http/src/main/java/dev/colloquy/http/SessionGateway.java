package dev.colloquy.http;

import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.tenant.ModelChoice;
import dev.colloquy.http.auth.Principal;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.japi.function.Function;

/** How the routes talk to sessions: asks through cluster sharding; turn streams come in the replies. */
public final class SessionGateway {

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final Duration askTimeout;
  private final ModelChoice models;

  /** Turns run the models they name, else the engine's default: no tenant chooses. */
  public SessionGateway(ActorSystem<?> system, Duration askTimeout) {
    this(system, askTimeout, ModelChoice.asRequested());
  }

  /** {@code models} chooses what a turn runs when it names nothing. */
  public SessionGateway(ActorSystem<?> system, Duration askTimeout, ModelChoice models) {
    this.system = system;
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
    this.models = models;
  }

  public ActorSystem<?> system() {
    return system;
  }

  public ModelChoice models() {
    return models;
  }

  /** {@code R} is the reply type the command names (ChatSession.SessionAnswer, TurnAnswer, DeleteAnswer). */
  public <R> CompletionStage<R> ask(String sessionId, Function<ActorRef<R>, ChatSession.Command> command) {
    return ask(sessionId, askTimeout, command);
  }

  /** As {@link #ask(String, Function)}, waiting up to {@code timeout} for a command that takes longer. */
  public <R> CompletionStage<R> ask(String sessionId, Duration timeout, Function<ActorRef<R>, ChatSession.Command> command) {
    EntityRef<ChatSession.Command> session = sharding.entityRefFor(ChatSession.ENTITY_KEY, sessionId);
    return session.<R>ask(command::apply, timeout)
        .exceptionally(error -> {
          throw unavailable(error);
        });
  }

  /** The command for {@code caller}: another tenant's or user's session answers as a missing one. */
  public <R> CompletionStage<R> ask(Principal caller, String sessionId, Function<ActorRef<R>, ChatSession.Command> command) {
    return this.<R>ask(sessionId, replyTo ->
        new ChatSession.ForTenant(caller.tenantId(), caller.userId().orElse(null), command.apply(replyTo)));
  }

  private static RuntimeException unavailable(Throwable error) {
    Throwable cause = error instanceof CompletionException ? error.getCause() : error;
    if (cause instanceof TimeoutException) {
      return new ApiException(ErrorCode.SESSION_UNAVAILABLE,
          "The session did not answer in time; try again");
    }
    return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
  }
}
