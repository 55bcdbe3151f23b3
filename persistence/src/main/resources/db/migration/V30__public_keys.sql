-- A key's kind: 'secret' (ck_…, the tenant's full API) or 'public' (cpk_…, a publishable key that a
-- web page embeds for the widget: it opens only the widget's routes, only from the tenant's allowed
-- origins). Every key issued before this migration is a secret key.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'secret';
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind CHECK (kind IN ('secret', 'public'));
