import { join } from "node:path";

/**
 * The repository's root, where the committed `drizzle/` and `assets/` and the built `dist/web`
 * are. This file is in src/server and the built server is dist/server/main.js, the same depth,
 * so the one path holds for both (docs/decisions/048-the-server-runs-built.md).
 */
export const ROOT_DIR = join(import.meta.dirname, "../..");
