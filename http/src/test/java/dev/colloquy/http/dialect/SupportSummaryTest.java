package dev.colloquy.http.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.colloquy.engine.domain.SessionStatus;
import dev.colloquy.engine.domain.SessionSummary;
import dev.colloquy.engine.domain.Usage;
import dev.colloquy.engine.session.SessionView;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A support session's end summary counts every message, not only the page of them a view holds. */
class SupportSummaryTest {

  private static final Instant OPENED = Instant.parse("2026-11-24T10:00:00Z");

  @Test
  void aLongSessionsSummaryCountsTheMessagesBeyondTheViewsPage() {
    SessionView.MessageView newest = new SessionView.MessageView("m-120", "assistant", "Bye", "t-60", "r-60", "m",
        List.of(), OPENED.plusSeconds(600));
    SessionSummary summary = new SessionSummary(60, 58, Map.of("p/m", new Usage(6_000, 1_200, 0.01)), OPENED,
        OPENED.plusSeconds(601), 601_000);
    SessionView view = new SessionView("s-1", SessionStatus.CLOSED, "Refunds", null,
        JsonNodeFactory.instance.objectNode(), OPENED, OPENED.plusSeconds(601), "closed", List.of(newest),
        JsonNodeFactory.instance.objectNode(), null, summary, null, null, List.of(), SessionView.Page.complete(true));

    SupportRoutes.Summary counted = SupportRoutes.Summary.toApi(view);

    assertThat(counted.totalMessages()).isEqualTo(60 + 58);
    assertThat(counted.totalInputTokens()).isEqualTo(6_000);
    assertThat(counted.totalOutputTokens()).isEqualTo(1_200);
    assertThat(counted.durationMs()).isEqualTo(601_000);
  }
}
