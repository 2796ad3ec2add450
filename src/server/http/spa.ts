import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

/**
 * Serves the built client's files when there is a build (`vite build` → dist/web) and returns
 * index.html, which the not-found handler sends for unknown page paths so the client router
 * can render the page — or its own not-found page.
 */
export async function registerSpa(app: FastifyInstance, webRoot: string): Promise<Buffer | null> {
  const indexFile = join(webRoot, "index.html");
  if (!existsSync(indexFile)) return null;
  const assetsDir = join(webRoot, "assets");
  await app.register(fastifyStatic, {
    root: webRoot,
    index: false,
    // The build writes .br/.gz beside each asset (vite.config.ts); they are sent when the browser accepts them.
    preCompressed: true,
    setHeaders(res, path) {
      // Hashed file names never change content, so browsers may keep them for a year.
      if (path.startsWith(assetsDir)) res.header("cache-control", "public, max-age=31536000, immutable");
    },
  });
  const indexHtml = readFileSync(indexFile);
  // The static plugin's wildcard would answer "/" itself (a directory: 403), so the home page is explicit.
  app.get("/", (_req, reply) => reply.header("cache-control", "no-cache").type("text/html; charset=utf-8").send(indexHtml));
  return indexHtml;
}
