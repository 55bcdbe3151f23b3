package dev.colloquy.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colloquy.engine.domain.StreamEvent;
import dev.colloquy.engine.domain.TurnEnding;
import dev.colloquy.engine.domain.TurnFrame;
import dev.colloquy.engine.domain.Usage;
import org.junit.jupiter.api.Test;

class SseFramingTest {

  @Test
  void hostileTokenTextStaysInsideOneEvent() {
    String hostile = "a\r\nevent: turn.completed\rdata: {}\n\nid: 99\r\r: x\u2028\u0000";
    TurnFrame frame = new TurnFrame(7, "s1", "t1", "tr1", new StreamEvent.Token("r1", hostile));
    SseParser parsed = SseParser.parse(SseFraming.canonical(frame).utf8String());
    assertThat(parsed.events).hasSize(1);
    SseEvent event = parsed.events.getFirst();
    assertThat(event.name()).isEqualTo("token");
    assertThat(event.id()).isEqualTo("7");
    assertThat(event.json().path("text").asText()).isEqualTo(hostile);
    assertThat(event.json().path("run_id").asText()).isEqualTo("r1");
    assertThat(event.json().path("trace_id").asText()).isEqualTo("tr1");
  }

  @Test
  void keepAliveIsAComment() {
    SseParser parsed = SseParser.parse(SseFraming.KEEP_ALIVE.utf8String());
    assertThat(parsed.events).isEmpty();
    assertThat(parsed.comments).containsExactly("keep-alive");
  }

  @Test
  void everyCanonicalEventCarriesTheCommonFields() {
    TurnFrame frame = new TurnFrame(1, "s", "t", "tr", new TurnEnding.Cancelled("disconnected"));
    SseEvent event = SseParser.parse(SseFraming.canonical(frame).utf8String()).events.getFirst();
    assertThat(event.name()).isEqualTo("turn.cancelled");
    assertThat(event.json().path("reason").asText()).isEqualTo("disconnected");
    assertThat(event.json().path("session_id").asText()).isEqualTo("s");
    assertThat(event.json().path("turn_id").asText()).isEqualTo("t");
  }

  @Test
  void aFrameIsWrittenWithItsFieldsInWireOrder() {
    TurnFrame frame = new TurnFrame(3, "s", "t", "tr", new TurnEnding.Completed("m1", "done", 99, new Usage(12, 7, 0.5)));
    assertThat(SseFraming.canonical(frame).utf8String()).isEqualTo("event: turn.completed\nid: 3\ndata: "
        + "{\"session_id\":\"s\",\"turn_id\":\"t\",\"trace_id\":\"tr\",\"message_id\":\"m1\",\"text\":\"done\","
        + "\"latency_ms\":99,\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7,\"total_tokens\":19,\"cost_usd\":0.5,\"estimated\":false}}"
        + "\n\n");
  }

  @Test
  void aStreamWritesTokensWithTheSameBytesAsTheMapperForAnyText() {
    SseFraming.Writer writer = new SseFraming.Writer();
    String[] texts = {"plain", "a\r\nb\"c\\d\u0000\u001f", "\u2028 é 日本 \uD83D\uDE00", "", "\uD83D"};
    long id = 1;
    for (String runId : new String[] {"r1", "r2"}) {
      for (String text : texts) {
        TurnFrame frame = new TurnFrame(id++, "s1", "t1", "tr1", new StreamEvent.Token(runId, text));
        assertThat(writer.write(frame)).as(text).isEqualTo(SseFraming.canonical(frame));
      }
    }
    TurnFrame untraced = new TurnFrame(id, "s1", "t1", null, new StreamEvent.Token("r1", "x"));
    assertThat(new SseFraming.Writer().write(untraced)).isEqualTo(SseFraming.canonical(untraced));
  }
}
