package dev.colloquy.engine.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A user's rename is a command of the session and a journaled event, and it wins over the automatic
 * title whenever it comes; the character of a chat is journaled with its opening and kept.
 */
class ChatRenameAndCharacterTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private static ActorTestKit testKit;

  private EventSourcedBehaviorTestKit<ChatSession.Command, ChatSession.Event, SessionState> session;

  @BeforeAll
  static void startKit() {
    testKit = ActorTestKit.create(EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stopKit() {
    testKit.shutdownTestKit();
  }

  @BeforeEach
  void newSession() {
    session = EventSourcedBehaviorTestKit.create(testKit.system(), ChatSession.create(UUID.randomUUID().toString(),
        TestEngine.offline(""), null));
  }

  @AfterEach
  void clear() {
    session.clear();
  }

  private void openChat(String userId, String characterId) {
    var opened = session.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.Open("default", userId, null,
        JsonNodeFactory.instance.objectNode(), characterId, List.of(), replyTo));
    assertThat(opened.reply()).isInstanceOf(ChatSession.SessionReply.class);
  }

  private ChatSession.SessionAnswer rename(String title) {
    return session.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.Rename(title, replyTo)).reply();
  }

  private void turn(String message) {
    var started = session.<ChatSession.TurnAnswer>runCommand(replyTo ->
        new ChatSession.StartTurn(message, null, null, List.of(), "trace", replyTo));
    TurnStreamProbe.read(testKit, started.reply()).untilTerminal();
  }

  @Test
  void aChatKeepsItsCharacterAndShowsIt() {
    openChat("u1", "purplefrog");

    assertThat(session.getState().characterId()).isEqualTo("purplefrog");
    assertThat(session.getState().view().characterId()).isEqualTo("purplefrog");
    assertThat(session.restart().state().characterId()).as("recovered from the journal").isEqualTo("purplefrog");
  }

  @Test
  void aRenameBeforeTheFirstMessageIsNotReplacedByTheAutomaticTitle() {
    openChat("u1", "purplefrog");
    var renamed = session.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.Rename("  Interview  ", replyTo));
    assertThat(renamed.event()).isEqualTo(new ChatSession.SessionRenamed("Interview",
        ((ChatSession.SessionRenamed) renamed.event()).at()));

    turn("What does PurpleFrog fear most?");

    assertThat(session.getState().title()).isEqualTo("Interview");
    assertThat(session.restart().state().title()).isEqualTo("Interview");
  }

  @Test
  void aRenameAfterTheAutomaticTitleReplacesItAndStays() {
    openChat("u1", "purplefrog");
    turn("What does PurpleFrog fear most?");
    assertThat(session.getState().title()).isEqualTo("What does PurpleFrog fear most?");

    var reply = rename("Fears");
    turn("And what does she love?");

    assertThat(((ChatSession.SessionReply) reply).session().title()).isEqualTo("Fears");
    assertThat(session.getState().title()).isEqualTo("Fears");
  }

  @Test
  void anEmptyOrOverlongTitleIsRefusedWithoutAnEvent() {
    openChat("u1", "purplefrog");

    var empty = session.<ChatSession.SessionAnswer>runCommand(replyTo -> new ChatSession.Rename(" ", replyTo));
    var overlong = session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.Rename("x".repeat(SessionState.MAX_TITLE_LENGTH + 1), replyTo));

    assertThat(empty.reply()).isInstanceOfSatisfying(ChatSession.Rejected.class,
        rejected -> assertThat(rejected.code()).isEqualTo(ChatSession.INVALID_TITLE));
    assertThat(overlong.reply()).isInstanceOfSatisfying(ChatSession.Rejected.class,
        rejected -> assertThat(rejected.message()).contains(String.valueOf(SessionState.MAX_TITLE_LENGTH)));
    assertThat(empty.hasNoEvents()).isTrue();
    assertThat(overlong.hasNoEvents()).isTrue();
  }

  @Test
  void anotherUsersOrAMissingChatCannotBeRenamedAndLooksTheSame() {
    var missing = session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.ForTenant("default", "u2", new ChatSession.Rename("Mine", replyTo)));
    openChat("u1", "purplefrog");
    var foreign = session.<ChatSession.SessionAnswer>runCommand(replyTo ->
        new ChatSession.ForTenant("default", "u2", new ChatSession.Rename("Mine", replyTo)));

    assertThat(foreign.reply()).isEqualTo(missing.reply())
        .isEqualTo(new ChatSession.Rejected(ChatSession.SESSION_NOT_FOUND, "Session not found", null));
    assertThat(foreign.hasNoEvents()).isTrue();
    assertThat(session.getState().title()).isNull();
  }
}
