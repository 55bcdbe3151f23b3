package dev.colloquy.mockllm;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Decides, request by request, whether the mock serves or fails, under the current settings.
 * Reconfiguring re-arms the warm-up rejections of {@link MockLlmSettings#failFirstRequests()}.
 */
final class RequestGate {
  enum Verdict {
    SERVE,
    WARM_UP_REJECTION,
    MODEL_FAILURE
  }

  /** The verdict, with the settings it was taken under so a request sees one consistent set. */
  record Admission(MockLlmSettings settings, Verdict verdict) {}

  private record Armed(MockLlmSettings settings, AtomicInteger rejectionsLeft) {
    static Armed with(MockLlmSettings settings) {
      return new Armed(settings, new AtomicInteger(settings.failFirstRequests()));
    }
  }

  private final AtomicReference<Armed> armed;

  RequestGate(MockLlmSettings settings) {
    this.armed = new AtomicReference<>(Armed.with(settings));
  }

  MockLlmSettings settings() {
    return armed.get().settings();
  }

  void rearm(MockLlmSettings settings) {
    armed.set(Armed.with(settings));
  }

  Admission admit(String model) {
    Armed current = armed.get();
    MockLlmSettings settings = current.settings();
    if (current.rejectionsLeft().getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
      return new Admission(settings, Verdict.WARM_UP_REJECTION);
    }
    if (settings.fails(model)) {
      return new Admission(settings, Verdict.MODEL_FAILURE);
    }
    return new Admission(settings, Verdict.SERVE);
  }
}
