import type { IncomingHttpHeaders } from "node:http";

// application/json, application/problem+json, application/vnd.api+json, text/json ...
const JSON_TYPE = /^(application|text)\/([\w.+-]+\+)?json$/;

function decodeText(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset || "utf-8").decode(body);
  } catch {
    // An unknown charset label: UTF-8 is the best guess and never throws.
    return new TextDecoder("utf-8").decode(body);
  }
}

/**
 * The `data` of an execution response: parsed JSON when the answer says it is JSON (and is),
 * otherwise its text, so the AI and the test panel always get something readable; null when
 * there is no body at all.
 */
export function parseResponseBody(headers: IncomingHttpHeaders, body: Buffer): unknown {
  if (body.length === 0) return null;
  const [mediaType = "", ...params] = (headers["content-type"] ?? "").split(";");
  const charset = params
    .map((p) => p.trim().split("="))
    .find(([key]) => key?.toLowerCase() === "charset")?.[1]
    ?.replace(/"/g, "");
  const text = decodeText(body, charset);
  if (!JSON_TYPE.test(mediaType.trim().toLowerCase())) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
