package dev.colloquy.ingestion.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

class SearchableDocsTest {

  @Test
  void matchesTheFiltersLiveDocumentsAcrossSegmentsAndNoOthers() throws IOException {
    try (Directory directory = new ByteBuffersDirectory();
        // No merges, so the deleted document stays in its segment as a reader sees it.
        IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE))) {
      writer.addDocument(doc("a", "shown"));
      writer.addDocument(doc("b", "shown"));
      writer.addDocument(doc("c", "hidden"));
      writer.commit();
      writer.addDocument(doc("d", "shown"));
      writer.deleteDocuments(new Term("id", "b"));
      writer.commit();

      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        assertThat(reader.leaves()).hasSize(2);
        assertThat(reader.hasDeletions()).isTrue();
        IndexSearcher searcher = new IndexSearcher(reader);

        SearchableDocs shown = SearchableDocs.of(searcher, new TermQuery(new Term("state", "shown")));

        assertThat(shown.count()).isEqualTo(2);
        assertThat(ids(searcher, shown)).containsExactlyInAnyOrder("a", "d");
        assertThat(shown.isFor(searcher)).isTrue();
      }
    }
  }

  @Test
  void refusesASearcherOfAnotherReader() throws IOException {
    try (Directory directory = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
      writer.addDocument(doc("a", "shown"));
      writer.commit();
      try (DirectoryReader first = DirectoryReader.open(directory)) {
        SearchableDocs shown = SearchableDocs.of(new IndexSearcher(first), new TermQuery(new Term("state", "shown")));
        writer.addDocument(doc("b", "shown"));
        writer.commit();
        try (DirectoryReader second = DirectoryReader.open(directory)) {
          IndexSearcher later = new IndexSearcher(second);

          assertThat(shown.isFor(later)).isFalse();
          assertThatThrownBy(() -> later.search(shown.query(), 10)).isInstanceOf(IllegalStateException.class);
        }
      }
    }
  }

  private static String[] ids(IndexSearcher searcher, SearchableDocs docs) throws IOException {
    ScoreDoc[] hits = searcher.search(docs.query(), 10).scoreDocs;
    String[] ids = new String[hits.length];
    for (int i = 0; i < hits.length; i++) {
      ids[i] = searcher.storedFields().document(hits[i].doc).get("id");
    }
    return Arrays.stream(ids).sorted().toArray(String[]::new);
  }

  private static Document doc(String id, String state) {
    Document doc = new Document();
    doc.add(new StringField("id", id, Field.Store.YES));
    doc.add(new StringField("state", state, Field.Store.NO));
    return doc;
  }
}
