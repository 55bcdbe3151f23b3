package dev.colloquy.http.dialect;

import static org.apache.pekko.http.javadsl.server.PathMatchers.segment;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colloquy.config.HttpSettings;
import dev.colloquy.engine.domain.ErrorCode;
import dev.colloquy.engine.session.ChatSession;
import dev.colloquy.engine.session.SessionState;
import dev.colloquy.engine.session.SessionView;
import dev.colloquy.http.Admission;
import dev.colloquy.http.Errors;
import dev.colloquy.http.HttpMetrics;
import dev.colloquy.http.Json;
import dev.colloquy.http.SessionGateway;
import dev.colloquy.http.auth.Principal;
import dev.colloquy.persistence.readside.ChatListing;
import dev.colloquy.persistence.readside.ChatRow;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * The Writing Room contract (seed 000, ADR-0002): {@code POST /chat/stream} and the chats of
 * {@code /chats}. A chat is a session opened with a character, by its user (the JWT's {@code sub});
 * a chat that is not the caller's, or does not exist, answers 403, checked before a stream opens.
 * Errors before the stream are API.md's error body (the contract defines none); after it, an
 * {@code error} event.
 */
public final class WritingRoomRoutes extends AllDirectives {

  /** The most chats {@code GET /chats} lists, most recently active first. */
  static final int MAX_CHATS = 1000;
  static final int MAX_CHARACTER_ID = 200;

  private final DialectSessions sessions;
  private final DialectStreams streams;
  private final ChatListing chats;
  private final HttpSettings settings;
  private final DialectErrors errors = new DialectErrors("Writing Room", WritingRoomRoutes::response);

  public WritingRoomRoutes(SessionGateway gateway, ChatListing chats, HttpSettings settings, HttpMetrics metrics,
      Admission admission) {
    this.sessions = new DialectSessions(gateway, admission);
    this.streams = new DialectStreams(sessions, settings.keepAlive(), metrics);
    this.chats = chats;
    this.settings = settings;
  }

  /** The routes for the caller; {@code traceId} is the request's, for the error bodies and the turn. */
  public Route route(Principal caller, String traceId) {
    return errors.handle(traceId, () -> concat(
        path(segment("chat").slash("stream"), () -> post(() -> body(body ->
            optionalHeaderValueByName("Last-Event-ID", lastEventId -> stream(caller, traceId, body, lastEventId))))),
        pathPrefix("chats", () -> concat(
            pathEndOrSingleSlash(() -> concat(
                get(() -> onSuccess(list(caller), listed -> json(StatusCodes.OK, listed))),
                post(() -> body(body -> onSuccess(create(caller, body), chat -> json(StatusCodes.CREATED, chat)))))),
            path(segment(), chatId -> concat(
                patch(() -> body(body -> onSuccess(rename(caller, chatId(chatId), body),
                    chat -> json(StatusCodes.OK, chat)))),
                delete(() -> onSuccess(delete(caller, chatId(chatId)), done -> complete(StatusCodes.NO_CONTENT)))))))));
  }

  private Route body(Function<String, Route> inner) {
    return entity(Unmarshaller.entityToString(), inner);
  }

  // ---- POST /chat/stream ----

  /**
   * Opens the turn's stream once the chat is known to be the caller's and to talk to the character
   * named. With {@code Last-Event-ID} (an id this stream sent), it resumes that turn instead of
   * sending the message again.
   */
  private Route stream(Principal caller, String traceId, String body, Optional<String> lastEventId) {
    long requestNanos = System.nanoTime();
    JsonNode json = DialectBodies.object(body);
    String chatId = chatId(DialectBodies.requiredText(json, "chat_id"));
    String characterId = characterId(json);
    String message = DialectBodies.message(json, "message", settings.maxMessageBytes());
    Optional<TurnEventId> resume = TurnEventId.parse(lastEventId);
    CompletionStage<ChatSession.TurnReply> turn = chat(caller, chatId).thenCompose(chat -> {
      requireCharacter(chat, characterId);
      return resume.isPresent()
          ? sessions.join(caller, chatId, resume.get().turnId(), 0)
          : sessions.startInChat(caller, chatId, message, traceId);
    });
    return onSuccess(turn, reply -> streams.serve(reply, () -> new WritingRoomFrames(chatId),
        resume.map(TurnEventId::number).orElse(0L),
        numbered -> new DialectSse.Frame(numbered.frame().name(),
            new TurnEventId(reply.turnId(), numbered.number()).value(), numbered.frame().data()),
        requestNanos));
  }

  /** A chat talking to another character is not the one the writer meant. */
  private static void requireCharacter(SessionView chat, String characterId) {
    if (!chat.characterId().equals(characterId)) {
      throw DialectBodies.invalid("character_id", "is '" + characterId + "' but this chat talks to '"
          + chat.characterId() + "'");
    }
  }

  // ---- /chats ----

  private CompletionStage<List<ChatJson>> list(Principal caller) {
    return chats.chats(caller.tenantId(), caller.userId(), MAX_CHATS)
        .thenApply(rows -> rows.stream().map(ChatJson::toApi).toList());
  }

  /** A chat with the id its client chose; its title, if given, is its user's from the start. */
  private CompletionStage<ChatJson> create(Principal caller, String body) {
    JsonNode json = DialectBodies.object(body);
    String chatIdField = DialectBodies.requiredText(json, "chat_id");
    if (!DialectBodies.isUuid(chatIdField)) {
      throw DialectBodies.invalid("chat_id", "must be a UUID (crypto.randomUUID())");
    }
    String chatId = chatIdField.toLowerCase();
    String characterId = characterId(json);
    Optional<String> title = DialectBodies.optionalText(json, "title");
    title.flatMap(SessionState::titleProblem).ifPresent(problem -> {
      throw new DialectRefusal(ErrorCode.INVALID_TITLE, problem);
    });
    CompletionStage<SessionView> opened = sessions.open(caller, chatId, caller.userId().orElse(null),
        persona(characterId), Json.MAPPER.createObjectNode(), characterId);
    return opened.thenCompose(chat -> title.isPresent()
            ? sessions.rename(caller, chatId, title.get()) : CompletableFuture.completedFuture(chat))
        .thenApply(ChatJson::toApi);
  }

  private CompletionStage<ChatJson> rename(Principal caller, String chatId, String body) {
    String title = DialectBodies.requiredText(DialectBodies.object(body), "title");
    return chat(caller, chatId).thenCompose(chat -> sessions.rename(caller, chatId, title)).thenApply(ChatJson::toApi);
  }

  private CompletionStage<ChatSession.Done> delete(Principal caller, String chatId) {
    return chat(caller, chatId).thenCompose(chat -> sessions.delete(caller, chatId));
  }

  /** The caller's chat: a session of theirs opened without a character is no chat, and answers as a missing one. */
  private CompletionStage<SessionView> chat(Principal caller, String chatId) {
    return sessions.get(caller, chatId).thenApply(chat -> {
      if (chat.characterId() == null) {
        throw notYours();
      }
      return chat;
    });
  }

  /**
   * What the model is told about who it is: the character the writer talks to. The character's
   * traits come from the story material retrieval finds, not from here.
   */
  static String persona(String characterId) {
    return "You are " + characterId + ", a character of the writer's story. Answer the writer in character, in the"
        + " first person, from what the story material says about you.";
  }

  private static String characterId(JsonNode json) {
    return DialectBodies.requiredName(json, "character_id", MAX_CHARACTER_ID);
  }

  /** A chat id that is no UUID names no chat. */
  private static String chatId(String value) {
    if (!DialectBodies.isUuid(value)) {
      throw notYours();
    }
    return value.toLowerCase();
  }

  private static DialectRefusal notYours() {
    return new DialectRefusal(StatusCodes.FORBIDDEN, "FORBIDDEN", "This chat does not exist or is not yours");
  }

  // ---- errors ----

  /** Refusals as API.md's error body; a chat or turn the caller cannot reach is 403, as the contract says. */
  private static HttpResponse response(DialectRefusal refusal, String traceId) {
    if (refusal.code().equals(ErrorCode.SESSION_NOT_FOUND.name()) || refusal.code().equals(ErrorCode.TURN_NOT_FOUND.name())) {
      return response(notYours(), traceId);
    }
    return Errors.response(refusal.status(), refusal.code(), refusal.getMessage(), traceId);
  }

  private Route json(StatusCode status, Object body) {
    return complete(Json.response(status, body));
  }

  /** A chat as the contract's {@code chats} row shows it. */
  record ChatJson(String id, String userId, String characterId, String title, Instant createdAt, Instant updatedAt) {

    static ChatJson toApi(SessionView chat) {
      return new ChatJson(chat.sessionId(), chat.userId(), chat.characterId(), chat.title(), chat.createdAt(),
          chat.updatedAt());
    }

    static ChatJson toApi(ChatRow row) {
      return new ChatJson(row.chatId(), row.userId(), row.characterId(), row.title(), row.createdAt(), row.updatedAt());
    }
  }
}
