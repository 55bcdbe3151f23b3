-- Document metadata of the ingestion module (seed 004 §4 knowledge_documents), read and written by
-- dev.colloquy.ingestion.documents.JdbcDocumentStore. Chunks and vectors live in the vector store.
CREATE TABLE knowledge_documents (
    id            UUID        PRIMARY KEY,
    tenant_id     TEXT        NOT NULL,
    filename      TEXT        NOT NULL,
    file_type     TEXT        NOT NULL,
    version       INT         NOT NULL,
    is_active     BOOLEAN     NOT NULL DEFAULT TRUE,
    status        TEXT        NOT NULL CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
    chunk_count   INT         NOT NULL DEFAULT 0,
    error_code    TEXT,
    error_message TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    CONSTRAINT knowledge_documents_version_unique UNIQUE (tenant_id, filename, version)
);

CREATE INDEX knowledge_documents_tenant_active ON knowledge_documents (tenant_id, is_active, created_at DESC);
