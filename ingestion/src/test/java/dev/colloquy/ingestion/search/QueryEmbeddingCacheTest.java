package dev.colloquy.ingestion.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class QueryEmbeddingCacheTest {

  private final List<String> embedded = new ArrayList<>();
  private final Function<String, float[]> model = text -> {
    embedded.add(text);
    return new float[] {text.length(), 1f};
  };

  @Test
  void aRepeatedQuestionOfTheSameTenantIsEmbeddedOnce() {
    QueryEmbeddingCache cache = new QueryEmbeddingCache(4);

    float[] first = cache.vector("acme", "Do gift cards expire?", model);
    float[] again = cache.vector("acme", "Do gift cards expire?", model);

    assertThat(again).containsExactly(first);
    assertThat(embedded).containsExactly("Do gift cards expire?");
  }

  @Test
  void anotherTenantsSameQuestionIsEmbeddedForItself() {
    QueryEmbeddingCache cache = new QueryEmbeddingCache(4);

    cache.vector("acme", "Do gift cards expire?", model);
    cache.vector("globex", "Do gift cards expire?", model);

    assertThat(embedded).hasSize(2);
  }

  @Test
  void theLeastRecentlyUsedQuestionGoesWhenFull() {
    QueryEmbeddingCache cache = new QueryEmbeddingCache(2);
    cache.vector("acme", "a", model);
    cache.vector("acme", "b", model);
    cache.vector("acme", "a", model);

    cache.vector("acme", "c", model);
    cache.vector("acme", "a", model);
    cache.vector("acme", "b", model);

    assertThat(embedded).containsExactly("a", "b", "c", "b");
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void aCallerChangingItsVectorLeavesTheCachedOneIntact() {
    QueryEmbeddingCache cache = new QueryEmbeddingCache(2);
    cache.vector("acme", "abc", model)[0] = 99f;

    assertThat(cache.vector("acme", "abc", model)).containsExactly(3f, 1f);
  }

  @Test
  void aFailedEmbeddingIsNotKeptAndIsTriedAgain() {
    QueryEmbeddingCache cache = new QueryEmbeddingCache(2);
    assertThatThrownBy(() -> cache.vector("acme", "abc", text -> {
      throw new IllegalStateException("model down");
    })).hasMessage("model down");

    assertThat(cache.vector("acme", "abc", model)).containsExactly(3f, 1f);
    assertThat(embedded).containsExactly("abc");
  }

  @Test
  void capacityZeroEmbedsEveryTimeAndANegativeOneIsRefused() {
    QueryEmbeddingCache none = new QueryEmbeddingCache(0);
    none.vector("acme", "abc", model);
    none.vector("acme", "abc", model);

    assertThat(embedded).hasSize(2);
    assertThat(none.size()).isZero();
    assertThatThrownBy(() -> new QueryEmbeddingCache(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
