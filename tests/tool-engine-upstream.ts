import { afterAll, beforeAll } from "vitest";
import type { ExecuteToolOptions, ToolHttpConfig } from "../src/server/tools/index.ts";
import { startToolUpstream, type ToolUpstream } from "./fakes/tool-upstream.ts";

/** What the tool-engine tests share: one local upstream, options that allow it, a config builder. */
export interface ToolEngineUpstream {
  upstream: ToolUpstream;
  options: ExecuteToolOptions;
  /** A GET to `path` on the upstream, with `overrides` on top. */
  config(path: string, overrides?: Partial<ToolHttpConfig>): ToolHttpConfig;
}

/** Starts the upstream before the file's tests and closes it after; its fields are set once they run. */
export function useToolUpstream(): ToolEngineUpstream {
  const engine: ToolEngineUpstream = {
    upstream: undefined as unknown as ToolUpstream,
    options: { allowedHosts: [] },
    config: (path, overrides = {}) => ({
      http_method: "GET",
      parameter_format: "standard",
      end_point_url: `${engine.upstream.origin}${path}`,
      ...overrides,
    }),
  };
  beforeAll(async () => {
    engine.upstream = await startToolUpstream();
    engine.options = { allowedHosts: [engine.upstream.hostPort] };
  });
  afterAll(() => engine.upstream.close());
  return engine;
}
