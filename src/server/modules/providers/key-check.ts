/**
 * The key check on save: each service's cheapest authenticated request (a list of its models,
 * projects or voices), as the OpenAI key is checked. Only the service's own refusal (401/403)
 * stops a save; an address that does not answer, or answers otherwise, does not — a self-hosted
 * model may be down for a moment, and the call says so in words if it still is. The request goes
 * through the tools' SSRF guard: a private address not on TOOL_ALLOWED_HOSTS is not asked at all,
 * so the check cannot be used to probe the server's own network.
 */
import type { ProviderProtocol } from "../../../shared/providers.ts";
import { CARTESIA_VERSION } from "../../voice/pipeline/cartesia.ts";
import { sendRequest, systemResolver, ToolExecutionError } from "../../tools/index.ts";
import { ANTHROPIC_VERSION } from "../../voice/pipeline/anthropic-messages.ts";

const CHECK_TIMEOUT_MS = 10_000;

function checkRequest(protocol: ProviderProtocol, baseUrl: string, key: string): { url: string; headers: Record<string, string> } {
  const base = baseUrl.replace(/\/+$/, "");
  switch (protocol) {
    case "deepgram":
      return { url: `${base}/v1/projects`, headers: { authorization: `Token ${key}` } };
    case "anthropic":
      return { url: `${base}/v1/models`, headers: { "x-api-key": key, "anthropic-version": ANTHROPIC_VERSION } };
    case "elevenlabs":
      return { url: `${base}/v1/models`, headers: { "xi-api-key": key } };
    case "cartesia":
      return { url: `${base}/voices?limit=1`, headers: { authorization: `Bearer ${key}`, "cartesia-version": CARTESIA_VERSION } };
    case "openai-transcription":
    case "openai-compatible":
    case "openai-speech":
      return { url: `${base}/models`, headers: { authorization: `Bearer ${key}` } };
  }
}

/** The status with which the service refused the key, or null when it did not (or was not asked). */
export async function keyRefusal(protocol: ProviderProtocol, baseUrl: string, key: string, allowedHosts: readonly string[]): Promise<number | null> {
  const { url, headers } = checkRequest(protocol, baseUrl, key);
  const target = new URL(url);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ToolExecutionError("tool_timeout", `${target.host} did not answer.`, { host: target.host })), CHECK_TIMEOUT_MS);
  try {
    const result = await sendRequest(
      { method: "GET", url: target, headers, body: null, configuredHeaders: [] },
      { allowedHosts, resolve: systemResolver, connectTimeoutMs: CHECK_TIMEOUT_MS, maxBytes: 1024, truncate: true, signal: controller.signal },
    );
    return result.kind === "response" && (result.status === 401 || result.status === 403) ? result.status : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
