package dev.colloquy.ingestion.store;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BitSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;

/**
 * The documents of one index reader that searches may return (the tenant's, of a published version,
 * not deleted), worked out once per reader and then used as the filter of every search on it.
 *
 * <p>Why: the visibility flag is an updatable doc-value, and Lucene does not cache a query over
 * doc-values that have been updated, so the filter was evaluated document by document for each of
 * a hybrid search's four searches and for the count before them; at 100,000 chunks that cost about
 * as much as the HNSW searches themselves. A reader is immutable: a publish, unpublish, upsert or
 * delete commits and opens a new one, as does the refresh after merges, so bits worked out for a
 * reader never go stale.
 */
final class SearchableDocs {

  private final IndexReader reader;
  private final FixedBitSet[] bitsByLeaf;
  private final int[] countByLeaf;
  private final long count;
  private final Query query;

  private SearchableDocs(IndexReader reader, FixedBitSet[] bitsByLeaf) {
    this.reader = reader;
    this.bitsByLeaf = bitsByLeaf;
    this.countByLeaf = new int[bitsByLeaf.length];
    long total = 0;
    for (int leaf = 0; leaf < bitsByLeaf.length; leaf++) {
      countByLeaf[leaf] = bitsByLeaf[leaf].cardinality();
      total += countByLeaf[leaf];
    }
    this.count = total;
    this.query = new BitsQuery();
  }

  /** Evaluates {@code filter} once over every leaf of the searcher's reader, deleted documents left out. */
  static SearchableDocs of(IndexSearcher searcher, Query filter) throws IOException {
    IndexReader reader = searcher.getIndexReader();
    Weight weight = searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
    List<LeafReaderContext> leaves = reader.leaves();
    FixedBitSet[] bitsByLeaf = new FixedBitSet[leaves.size()];
    for (LeafReaderContext leaf : leaves) {
      int maxDoc = leaf.reader().maxDoc();
      FixedBitSet bits = new FixedBitSet(Math.max(1, maxDoc));
      Scorer scorer = weight.scorer(leaf);
      if (scorer != null) {
        // A weight's scorer also matches deleted documents; the searches' collectors would skip them.
        Bits live = leaf.reader().getLiveDocs();
        DocIdSetIterator docs = scorer.iterator();
        for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
          if (live == null || live.get(doc)) {
            bits.set(doc);
          }
        }
      }
      bitsByLeaf[leaf.ord] = bits;
    }
    return new SearchableDocs(reader, bitsByLeaf);
  }

  /** Whether these bits were worked out for the reader this searcher reads. */
  boolean isFor(IndexSearcher searcher) {
    return searcher.getIndexReader() == reader;
  }

  long count() {
    return count;
  }

  /** A filter matching exactly these documents; valid only on a searcher of the same reader. */
  Query query() {
    return query;
  }

  private final class BitsQuery extends Query {

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
      if (searcher.getIndexReader() != reader) {
        throw new IllegalStateException("searchable documents used on another reader than the one they were worked out for");
      }
      return new ConstantScoreWeight(this, boost) {
        @Override
        public ScorerSupplier scorerSupplier(LeafReaderContext context) {
          int cardinality = countByLeaf[context.ord];
          if (cardinality == 0) {
            return null;
          }
          Scorer scorer = new ConstantScoreScorer(score(), scoreMode, new BitSetIterator(bitsByLeaf[context.ord], cardinality));
          return new DefaultScorerSupplier(scorer);
        }

        @Override
        public boolean isCacheable(LeafReaderContext context) {
          return false;
        }
      };
    }

    @Override
    public void visit(QueryVisitor visitor) {
      visitor.visitLeaf(this);
    }

    @Override
    public String toString(String field) {
      return "searchable(" + count + " docs)";
    }

    @Override
    public boolean equals(Object other) {
      return this == other;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }
}
