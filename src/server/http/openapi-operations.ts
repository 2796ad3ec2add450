/**
 * What the OpenAPI document says of each operation beyond its schemas, derived from the route's
 * method and path so route files carry no extra metadata: a stable operationId, a summary, one tag
 * per resource, its security (from auth/route-permissions.ts and `keyMay`), and its responses —
 * the success answer of routes that serialise no schema, and the error answers in the shared shape.
 */
import { keyMay } from "../../shared/roles.ts";
import { permissionOf } from "../auth/route-permissions.ts";
import { isIdempotentRoute } from "../modules/idempotency/idempotency.ts";

type Json = Record<string, unknown>;

const words = (segment: string) => segment.replace(/\.(csv)$/, "").split(/[-_.]/).filter(Boolean);
const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** `POST /api/assistants/:id/publish` → `postAssistantsByIdPublish`: changes only when the route does. */
export function operationIdOf(method: string, url: string): string {
  const parts = url.replace(/^\/api\//, "").split("/").filter(Boolean);
  const tail = parts.flatMap((p) => (p.startsWith(":") ? ["By", cap(p.slice(1))] : [...words(p).map(cap), ...(p.endsWith(".csv") ? ["Csv"] : [])]));
  return method.toLowerCase() + tail.join("");
}

/** The resource a path belongs to: its first segment, with the few that name one thing twice joined. */
const TAGS: Record<string, string> = {
  organization: "Organizations",
  organizations: "Organizations",
  invitations: "Team",
  dnc: "Do-not-call list",
  "audit-log": "Audit log",
  "audit-log.csv": "Audit log",
  "api-keys": "API keys",
  "sip-trunks": "SIP trunks",
};
export function tagOf(url: string): string {
  const first = url.replace(/^\/api\//, "").split("/")[0]!;
  return TAGS[first] ?? cap(words(first).join(" "));
}

const singular = (phrase: string) =>
  phrase.replace(/(\w+)$/, (w) => (w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.endsWith("ss") || w.endsWith("sis") || !w.endsWith("s") ? w : w.slice(0, -1)));
const ACTIONS = new Set(["publish", "rollback", "cancel", "execute", "search", "reprocess", "switch", "accept", "rotate", "test", "resend", "replay", "reveal"]);

/** Where the rule below reads badly. */
const SUMMARIES: Record<string, string> = {
  "GET /api/assistants/defaults": "Get the defaults of a new assistant",
  "GET /api/assistants/drafts": "List assistants with unpublished drafts",
  "POST /api/calls/outbound": "Place an outbound call",
  "POST /api/calls/test-session": "Start a test call in the browser",
  "GET /api/calls/:id/recording": "Get a call's recording",
  "POST /api/calls/:id/analysis": "Analyse a call again",
  "POST /api/calls/:id/scenario": "Make a test scenario from a call",
  "POST /api/assistants/:id/analysis-runs": "Analyse an assistant's recent calls",
  "GET /api/dnc": "List the do-not-call numbers",
  "POST /api/dnc": "Add numbers to the do-not-call list",
  "DELETE /api/dnc/:phone": "Remove a number from the do-not-call list",
  "PUT /api/knowledge-bases/:id/documents/:docId": "Replace a document of a knowledge base",
  "POST /api/knowledge-bases/:id/documents": "Add a document to a knowledge base",
  "GET /api/organization": "Get the current organisation",
  "PATCH /api/organization": "Rename the current organisation",
  "GET /api/team/members": "List the team's members",
  "GET /api/team/invitations": "List pending invitations",
  "GET /api/audit-log": "List audit log entries",
  "GET /api/getting-started": "Get the getting-started checklist",
  "GET /api/account": "Get one's own account",
  "DELETE /api/account": "Delete one's own account",
  "POST /api/account/password": "Change one's password",
  "GET /api/invitations/preview": "Preview an invitation",
  "GET /api/account/options": "Get the sign-in and sign-up options",
  "POST /api/assistants/:id/test-runs": "Run an assistant's test scenarios",
};

/** A short English summary, e.g. "List assistants", "Publish assistant", "Delete tool". */
export function summaryOf(method: string, url: string): string {
  const fixed = SUMMARIES[`${method} ${url}`];
  if (fixed) return fixed;
  const parts = url.replace(/^\/api\//, "").split("/").filter(Boolean);
  const nouns = parts.filter((p) => !p.startsWith(":")).map((p) => words(p).join(" "));
  const endsWithParam = parts.at(-1)!.startsWith(":");
  const head = nouns.at(-1) ?? "";
  const owner = nouns.length > 1 ? singular(nouns.at(-2)!) : "";
  const of = owner ? ` of ${owner}` : "";
  if (url.endsWith(".csv")) return `Download ${head} as CSV`;
  if (parts.at(-1) === ":action") return `Start, pause, resume or cancel ${singular(head)}`;
  switch (method) {
    case "GET":
      return endsWithParam ? `Get ${singular(head)}${of}` : `${owner && !parts.at(-2)!.startsWith(":") ? "Get" : "List"} ${head}${of}`;
    case "POST":
      if (ACTIONS.has(head)) return `${cap(head)} ${owner || "request"}`;
      return endsWithParam ? `Act on ${singular(head)}` : `Create ${singular(head)}${of}`;
    case "PUT":
      return `Set ${head}${of}`;
    case "PATCH":
      return `Update ${endsWithParam ? singular(head) : head}${of}`;
    case "DELETE":
      return `Delete ${endsWithParam ? singular(head) : head}${of}`;
    default:
      return `${cap(method.toLowerCase())} ${head}`;
  }
}

/** Who may call it: none for public routes, a session only for what no key may do (`keyMay`), else a key or a session. */
export function securityOf(method: string, url: string): Json[] {
  const permission = permissionOf(method, url);
  if (!permission) return [];
  return keyMay(permission) ? [{ bearerAuth: [] }, { sessionCookie: [] }] : [{ sessionCookie: [] }];
}

const described = (description: string, content?: Json) => ({ description, ...(content ? { content } : {}) });
const csv = described("A CSV file", { "text/csv": { schema: { type: "string" } } });

/**
 * The success answer of routes whose handler serialises no response schema (checked against the
 * handlers: every DELETE answers 204, the rest as listed).
 */
const SUCCESS: Record<string, [string, Json]> = {
  "POST /api/assistants/:id/rollback": ["201", described("A new draft version restored from the chosen one")],
  "POST /api/tools/:id/execute": ["200", described("The tool's answer")],
  "PUT /api/credentials/twilio": ["200", described("Saved")],
  "PUT /api/credentials/:name": ["200", described("Saved")],
  "POST /api/calls/test-session": ["200", described("The test call's session")],
  "PUT /api/settings/calls": ["200", described("Saved")],
  "POST /api/dnc": ["201", described("How many numbers were added")],
  "POST /api/campaigns": ["201", described("The campaign, created")],
  "GET /api/campaigns/:id/contacts.csv": ["200", csv],
  "GET /api/calls/export.csv": ["200", csv],
  "GET /api/audit-log.csv": ["200", csv],
  "GET /api/calls/:id/recording": ["302", described("Redirects to a short-lived signed address of the recording (audio)", undefined)],
  "POST /api/calls/:id/analysis": ["202", described("The analysis is queued")],
  "POST /api/assistants/:id/analysis-runs": ["202", described("The analyses are queued")],
  "PUT /api/settings/retention": ["200", described("The settings as saved")],
  "POST /api/organizations/:id/switch": ["204", described("Switched")],
  "PATCH /api/organization": ["204", described("Renamed")],
  "PATCH /api/team/members/:userId": ["204", described("Role changed")],
  "POST /api/team/invitations/accept": ["200", described("Joined")],
  "PATCH /api/account/name": ["200", described("The account, renamed")],
  "POST /api/account/password": ["204", described("Password changed")],
};

const SUCCESS_WORDS: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted: the work goes on in the background", "204": "Done, no content" };

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The shared error answers, once in `components.responses`. */
export const ERROR_RESPONSES: Record<string, { status: string; description: string }> = {
  BadRequest: { status: "400", description: "The request is malformed or fails validation" },
  Unauthorized: { status: "401", description: "No valid API key or session" },
  Forbidden: { status: "403", description: "The role, or an API key, may not do this" },
  NotFound: { status: "404", description: "No such resource in this organisation" },
  Conflict: { status: "409", description: "Conflicts with the resource's state, or its Idempotency-Key is still being handled" },
  Unprocessable: { status: "422", description: "This Idempotency-Key was used with a different request" },
  TooManyRequests: { status: "429", description: "Rate limited: retry after Retry-After seconds" },
  ClientError: { status: "4XX", description: "Another refusal (e.g. 413 body too large, 415 content type): the error shape" },
  BadGateway: { status: "502", description: "The tool's server could not be reached or answered unusably (the error's code says which)" },
  GatewayTimeout: { status: "504", description: "The tool's server was too slow" },
};

/** Routes that call a customer's server and say so when it fails (tools/errors.ts). */
const UPSTREAM_ROUTES = new Set(["POST /api/tools/:id/execute"]);

/** Fills in one operation of the generated document (`operation` is modified). */
export function completeOperation(method: string, url: string, operation: Json): void {
  operation.operationId = operationIdOf(method, url);
  operation.summary = summaryOf(method, url);
  operation.tags = [tagOf(url)];
  const security = securityOf(method, url);
  operation.security = security;
  const responses = { ...(operation.responses as Json | undefined) };
  delete responses["4XX"];
  // @fastify/swagger's stand-in for a route without a response schema: replaced by what it answers.
  const standIn = responses["200"] as Json | undefined;
  if (standIn && standIn.description === "Default Response" && !standIn.content) delete responses["200"];
  if (!Object.keys(responses).some((status) => /^[23]/.test(status))) {
    const [status, response] = SUCCESS[`${method} ${url}`] ?? (method === "DELETE" ? ["204", described("Deleted")] : ["200", described("Done")]);
    responses[status] = response;
  }
  for (const [status, response] of Object.entries(responses)) {
    const r = response as Json;
    if (!r.description || r.description === "Default Response") responses[status] = { ...r, description: SUCCESS_WORDS[status] ?? "Success" };
  }
  responses["400"] = ref("BadRequest");
  if (security.length) {
    responses["401"] = ref("Unauthorized");
    responses["403"] = ref("Forbidden");
    responses["429"] = ref("TooManyRequests");
  }
  if (url.includes("/:")) responses["404"] = ref("NotFound");
  if (isIdempotentRoute(method, url)) {
    responses["409"] = ref("Conflict");
    responses["422"] = ref("Unprocessable");
  }
  responses["4XX"] = ref("ClientError");
  if (UPSTREAM_ROUTES.has(`${method} ${url}`)) {
    responses["502"] = ref("BadGateway");
    responses["504"] = ref("GatewayTimeout");
  }
  operation.responses = responses;
}
