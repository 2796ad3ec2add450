-- Tool types are API and connector (spec §3, §9; ADR 022). "function" was accepted before but
-- never behaved differently from an API tool, so existing rows become API tools.
UPDATE "tools" SET "type" = 'API' WHERE "type" = 'function';
