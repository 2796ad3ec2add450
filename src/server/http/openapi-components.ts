/**
 * The named schemas of the OpenAPI document (`components.schemas`): every object, list, union and
 * enum the shared modules export as `xxxSchema`, named `Xxx`, so a generated client gets one named
 * type per wire shape instead of anonymous copies. A private registry (not zod's global one): the
 * names matter only to the document. Strings and numbers stay inline, where they read better.
 * The document keeps only the names an operation reaches (openapi.ts prunes the rest).
 */
import { z } from "zod";
import * as account from "../../shared/account.ts";
import * as analysis from "../../shared/analysis.ts";
import * as apiKeys from "../../shared/api-keys.ts";
import * as assistants from "../../shared/assistants.ts";
import * as audit from "../../shared/audit.ts";
import * as callRecords from "../../shared/call-records.ts";
import * as calls from "../../shared/calls.ts";
import * as campaigns from "../../shared/campaigns.ts";
import * as credentials from "../../shared/credentials.ts";
import * as dialSafety from "../../shared/dial-safety.ts";
import * as gettingStarted from "../../shared/getting-started.ts";
import * as knowledge from "../../shared/knowledge.ts";
import * as live from "../../shared/live.ts";
import * as outbound from "../../shared/outbound.ts";
import * as phoneNumbers from "../../shared/phone-numbers.ts";
import * as providers from "../../shared/providers.ts";
import * as reachability from "../../shared/reachability.ts";
import * as replay from "../../shared/replay.ts";
import * as retention from "../../shared/retention.ts";
import * as roles from "../../shared/roles.ts";
import * as scenarios from "../../shared/scenarios.ts";
import * as sipTrunks from "../../shared/sip-trunks.ts";
import * as team from "../../shared/team.ts";
import * as tools from "../../shared/tools.ts";
import * as versions from "../../shared/versions.ts";
import * as webhooks from "../../shared/webhooks.ts";

const MODULES = [
  account, analysis, apiKeys, assistants, audit, callRecords, calls, campaigns, credentials, dialSafety, gettingStarted, knowledge, live, outbound,
  phoneNumbers, providers, reachability, replay, retention, roles, scenarios, sipTrunks, team, tools, versions, webhooks,
];

const NAMED_KINDS = new Set(["object", "array", "union", "enum", "record", "intersection"]);

/** The kind a schema is on the wire: an object with a transform or a `.nullable()` is still an object. */
function wireKind(schema: z.ZodType): string {
  const def = schema.def as { type: string; in?: z.ZodType; innerType?: z.ZodType };
  if (def.type === "pipe" && def.in) return wireKind(def.in);
  if (def.type === "nullable" && def.innerType) return wireKind(def.innerType);
  return def.type;
}

export const apiSchemaRegistry = z.registry<{ id: string }>();

/** The names given, so the document can tell a request's variant (`XInput`) from the shape. */
export const apiSchemaNames = new Set<string>();

/**
 * `assistantSchema` → `Assistant`; `assistantInputSchema` → `AssistantRequest`, since the zod
 * transform calls the request variant of `Assistant` `AssistantInput` already.
 */
function nameOf(exportName: string): string {
  const base = exportName.slice(0, -"Schema".length).replace(/Input$/, "Request");
  return base.charAt(0).toUpperCase() + base.slice(1);
}

for (const module of MODULES) {
  // Sorted: a module's namespace lists its exports in order, but not every loader (vitest's) keeps it.
  for (const [exportName, value] of Object.entries(module).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!exportName.endsWith("Schema") || !(value instanceof z.ZodType) || !NAMED_KINDS.has(wireKind(value))) continue;
    // The same schema exported twice keeps its first name in that order.
    if (apiSchemaRegistry.has(value)) continue;
    const id = nameOf(exportName);
    if (apiSchemaNames.has(id)) throw new Error(`Two shared schemas would both be called ${id} in the API's document`);
    apiSchemaRegistry.add(value, { id });
    apiSchemaNames.add(id);
  }
}
