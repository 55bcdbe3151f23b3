-- What kind of document an upload is, as its uploader says (seed 004 §5.4: faq, policy,
-- product_catalog, sop); null when none was given.
ALTER TABLE knowledge_documents ADD COLUMN document_type TEXT;
