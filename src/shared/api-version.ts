/**
 * The API's version, sent as `API-Version` on every `/api` answer and named in the OpenAPI
 * document. It changes only with a breaking change (a field removed or renamed, a stricter rule, a
 * changed status); additions (new routes, new optional fields, new enum values) keep it. The
 * README's API section states the policy.
 */
export const API_VERSION = "1";
export const API_VERSION_HEADER = "API-Version";
