package dev.colloquy.engine.turn;

import dev.colloquy.engine.model.ChatListener;
import dev.colloquy.engine.model.ChatModel;
import dev.colloquy.engine.model.ChatRequest;
import dev.colloquy.engine.model.ChatStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** A chat model the test speaks for: each call waits for the test to send its tokens and its end. */
final class ScriptedModel implements ChatModel {

  /** One model call as the test drives it. */
  record Call(ChatRequest request, ChatListener listener, AtomicBoolean cancelled) {}

  private final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();

  @Override
  public String provider() {
    return "scripted";
  }

  @Override
  public ChatStream stream(ChatRequest request, ChatListener listener) {
    AtomicBoolean cancelled = new AtomicBoolean();
    calls.add(new Call(request, listener, cancelled));
    return () -> cancelled.set(true);
  }

  /** The next call if one is made within {@code wait}, else null. */
  Call callWithin(java.time.Duration wait) throws InterruptedException {
    return calls.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  Call nextCall() throws InterruptedException {
    Call call = calls.poll(10, TimeUnit.SECONDS);
    if (call == null) {
      throw new AssertionError("the model was not called");
    }
    return call;
  }
}
