package dev.colloquy.engine.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LazyHttpClientTest {

  @Test
  void theClientIsBuiltAtItsFirstUseOnlyAndOnceHoweverManyAskAtOnce() throws Exception {
    AtomicInteger built = new AtomicInteger();
    LazyHttpClient lazy = new LazyHttpClient(() -> {
      built.incrementAndGet();
      return HttpClient.newBuilder().build();
    });
    assertThat(built).hasValue(0);

    CountDownLatch go = new CountDownLatch(1);
    List<Future<HttpClient>> asked = new ArrayList<>();
    try (ExecutorService threads = Executors.newFixedThreadPool(8)) {
      for (int i = 0; i < 8; i++) {
        asked.add(threads.submit(() -> {
          go.await();
          return lazy.get();
        }));
      }
      go.countDown();
      HttpClient first = asked.getFirst().get();
      for (Future<HttpClient> each : asked) {
        assertThat(each.get()).isSameAs(first);
      }
    }
    assertThat(built).hasValue(1);
  }
}
