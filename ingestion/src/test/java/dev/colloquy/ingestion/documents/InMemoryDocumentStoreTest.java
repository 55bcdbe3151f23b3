package dev.colloquy.ingestion.documents;

class InMemoryDocumentStoreTest extends DocumentStoreContract {

  private final InMemoryDocumentStore store = new InMemoryDocumentStore();

  @Override
  protected DocumentStore store() {
    return store;
  }
}
