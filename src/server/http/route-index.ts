import type { FastifyInstance } from "fastify";

/**
 * Which methods each API path answers, so a request no route takes can be told apart: an unknown
 * path (404) from a known path asked with a method it does not support (405 with `Allow`).
 * Fastify's router sends both to the not-found handler. The paths are public (the OpenAPI
 * document lists them), so saying a path exists reveals nothing, with or without a key.
 */
export class RouteIndex {
  private readonly routes: { segments: string[]; methods: Set<string> }[] = [];

  /** Collects every route added after this call (register before the routes). */
  watch(app: FastifyInstance, prefix = "/api/"): void {
    app.addHook("onRoute", (route) => {
      if (!route.url.startsWith(prefix) || (route as { websocket?: boolean }).websocket) return;
      const segments = route.url.split("/");
      let entry = this.routes.find((r) => r.segments.join("/") === route.url);
      if (!entry) this.routes.push((entry = { segments, methods: new Set() }));
      for (const method of [route.method].flat()) entry.methods.add(method);
    });
  }

  /** The methods a path accepts (empty for an unknown path), GET bringing HEAD. */
  allowed(path: string): string[] {
    const parts = path.split("/");
    const methods = new Set<string>();
    for (const route of this.routes) if (matches(route.segments, parts)) for (const m of route.methods) methods.add(m);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  }
}

/** Fastify's pattern language as the API uses it: `:param` is one non-empty segment, `*` the rest. */
function matches(pattern: string[], parts: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p === "*") return true;
    const part = parts[i];
    if (part === undefined) return false;
    if (p.startsWith(":") ? part === "" : p !== part) return false;
  }
  return parts.length === pattern.length;
}
