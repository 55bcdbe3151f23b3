package dev.colloquy.engine.turn;

import dev.colloquy.engine.domain.TurnFrame;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * One reader of a {@link Transcript} as a stream: it emits the frames after its id as demand comes,
 * and when it has caught up it is woken by the next frame appended, through one async callback. It
 * completes after the terminal frame; cancelled (the client left), it detaches from the transcript.
 */
final class TranscriptSource extends GraphStage<SourceShape<TurnFrame>> {

  private final Outlet<TurnFrame> out = Outlet.create("TranscriptSource.out");
  private final SourceShape<TurnFrame> shape = SourceShape.of(out);
  private final Transcript transcript;
  private final long afterId;

  TranscriptSource(Transcript transcript, long afterId) {
    this.transcript = transcript;
    this.afterId = afterId;
  }

  @Override
  public SourceShape<TurnFrame> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private Transcript.Reader reader;

      {
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            emitNext();
          }
        });
      }

      @Override
      public void preStart() {
        AsyncCallback<Object> woken = createAsyncCallback(ignored -> emitNext());
        reader = transcript.attach(afterId, () -> woken.invoke(Boolean.TRUE));
      }

      private void emitNext() {
        if (!isAvailable(out)) {
          return;
        }
        TurnFrame frame = transcript.next(reader);
        if (frame != null) {
          push(out, frame);
          if (frame.terminal()) {
            completeStage();
          }
        } else if (transcript.finished(reader)) {
          completeStage();
        }
      }

      @Override
      public void postStop() {
        if (reader != null) {
          transcript.detach(reader);
        }
      }
    };
  }
}
