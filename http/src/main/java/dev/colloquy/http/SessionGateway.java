package dev.colloquy.http;

import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.turn.TurnFrame;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.typed.javadsl.ActorSource;

/** How the routes talk to sessions: asks through cluster sharding, and turn streams as Pekko sources. */
public final class SessionGateway {

  /**
   * Frames a slow client may fall behind by before its stream is dropped; it can resume with
   * Last-Event-ID, since the turn keeps every frame.
   */
  static final int STREAM_BUFFER = 10_000;

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final Duration askTimeout;

  public SessionGateway(ActorSystem<?> system, Duration askTimeout) {
    this.system = system;
    this.sharding = ClusterSharding.get(system);
    this.askTimeout = askTimeout;
  }

  ActorSystem<?> system() {
    return system;
  }

  CompletionStage<ChatSession.Reply> ask(String sessionId, Function<ActorRef<ChatSession.Reply>, ChatSession.Command> command) {
    EntityRef<ChatSession.Command> session = sharding.entityRefFor(ChatSession.ENTITY_KEY, sessionId);
    return session.<ChatSession.Reply>ask(command::apply, askTimeout)
        .exceptionally(error -> {
          throw unavailable(error);
        });
  }

  void tell(String sessionId, ChatSession.Command command) {
    sharding.entityRefFor(ChatSession.ENTITY_KEY, sessionId).tell(command);
  }

  /**
   * A source of turn frames that ends after the terminal frame, and the actor to hand the session as
   * the subscriber. When the source ends for any reason the session is told the subscriber left.
   */
  Pair<ActorRef<TurnFrame>, Source<TurnFrame, NotUsed>> subscriber(String sessionId) {
    Pair<ActorRef<TurnFrame>, Source<TurnFrame, NotUsed>> pair =
        ActorSource.<TurnFrame>actorRef(
                frame -> false, frame -> Optional.empty(), STREAM_BUFFER, OverflowStrategy.fail())
            .preMaterialize(system);
    ActorRef<TurnFrame> subscriber = pair.first();
    Source<TurnFrame, NotUsed> frames =
        pair.second()
            .takeWhile(frame -> !frame.terminal(), true)
            .watchTermination((mat, done) -> {
              done.whenComplete((ok, error) -> tell(sessionId, new ChatSession.LeaveTurn(subscriber)));
              return mat;
            });
    return Pair.create(subscriber, frames);
  }

  /** Stops a subscriber whose stream will never be served (the request was refused). */
  void discard(Source<TurnFrame, NotUsed> frames) {
    frames.runWith(Sink.cancelled(), system);
  }

  private static RuntimeException unavailable(Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
    if (cause instanceof TimeoutException) {
      return new ApiException(StatusCodes.SERVICE_UNAVAILABLE, "SESSION_UNAVAILABLE",
          "The session did not answer in time; try again");
    }
    return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
  }
}
