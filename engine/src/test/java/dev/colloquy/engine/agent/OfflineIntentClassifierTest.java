package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.domain.Intent;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The three branches of the offline rules, for a clinic that lists its topics and blocks one. */
class OfflineIntentClassifierTest {

  private static final List<String> TOPICS = List.of("appointments", "billing", "reports");
  private static final List<String> BLOCKED = List.of("competitor comparison");

  private static Intent classify(String message) {
    return OfflineIntentClassifier.classify(message, TOPICS, BLOCKED);
  }

  @ParameterizedTest
  @ValueSource(strings = {"hello", "Hi there!", "thanks a lot", "okay got it", "What can you help me with?",
      "I have an issue", "Good morning, team", "can you assist me please", "Thank you so much!!"})
  void smallTalkAndVagueOpenersAreConversational(String message) {
    assertThat(classify(message)).isEqualTo(Intent.CONVERSATIONAL);
  }

  @ParameterizedTest
  @ValueSource(strings = {"How do I reschedule my appointment?", "Why was I billed twice this month?",
      "hello, when will my blood test report be ready?", "What are your opening hours on Sunday?",
      "Thanks! And how much does a consultation cost?"})
  void specificQuestionsAreDomainQueries(String message) {
    assertThat(classify(message)).isEqualTo(Intent.DOMAIN_QUERY);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Who will win the cricket match tonight?", "Tell me a joke", "What's the weather in Pune?",
      "Can you do a competitor comparison with Apollo?"})
  void offTopicSubjectsAndBlockedTopicsAreOutOfScope(String message) {
    assertThat(classify(message)).isEqualTo(Intent.OUT_OF_SCOPE);
  }

  @org.junit.jupiter.api.Test
  void anOffTopicWordBesideOneOfTheTopicsStaysADomainQuery() {
    assertThat(classify("Is my appointment affected by the weather alert?")).isEqualTo(Intent.DOMAIN_QUERY);
  }

  @org.junit.jupiter.api.Test
  void withoutListedTopicsNothingButABlockedTopicIsOutOfScope() {
    assertThat(OfflineIntentClassifier.classify("Tell me a joke", List.of(), List.of())).isEqualTo(Intent.DOMAIN_QUERY);
    assertThat(OfflineIntentClassifier.classify("Tell me a joke", null, null)).isEqualTo(Intent.DOMAIN_QUERY);
  }
}
