package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rules that note facts when no model does: each clause about the user, in the third person, at most five. */
class OfflineFactExtractorTest {

  @Test
  void notesWhatTheUserSaidAboutThemselves() {
    assertThat(OfflineFactExtractor.extract("My name is Priya and I prefer email updates."))
        .containsExactlyInAnyOrder("The user's name is Priya", "The user prefers email updates");
    assertThat(OfflineFactExtractor.extract("My email is ana@example.com. I live in Lisbon."))
        .containsExactlyInAnyOrder("The user's email is ana@example.com", "The user lives in Lisbon");
    assertThat(OfflineFactExtractor.extract("Please remember that I'm allergic to penicillin"))
        .contains("The user asked to remember: I'm allergic to penicillin", "The user is allergic to penicillin");
    assertThat(OfflineFactExtractor.extract("my order number is SK-99812, where is it?"))
        .containsExactly("The user's order number is SK-99812");
  }

  @Test
  void aQuestionWithoutFactsNotesNothingAndNeverMoreThanFive() {
    assertThat(OfflineFactExtractor.extract("How long do refunds take?")).isEmpty();
    assertThat(OfflineFactExtractor.extract("I like tea. I like jazz. I like rain. I like cats. I like maps. I like sun."))
        .hasSize(OfflineFactExtractor.MAX_FACTS);
  }
}
