/**
 * A typed client of Switchboard's API: openapi-fetch over the types generated from the API's own
 * document (api-types.ts), so a call's path, parameters, body and answer are checked by the compiler.
 * The API's end-to-end tests use it; see the README for an example.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./api-types.ts";

export type { components, paths } from "./api-types.ts";
export type SwitchboardClient = Client<paths>;

export function createSwitchboardClient(options: { baseUrl: string; apiKey: string; fetch?: typeof fetch }): SwitchboardClient {
  return createClient<paths>({ baseUrl: options.baseUrl, headers: { authorization: `Bearer ${options.apiKey}` }, ...(options.fetch ? { fetch: options.fetch } : {}) });
}
