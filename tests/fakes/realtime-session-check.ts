/**
 * The fake OpenAI Realtime server's check of a GA `session.update` body (protocols
 * §1.3–1.4). Written independently of the engine's builder on purpose: it is the test of it.
 * Returns the first problem as the provider would report it, or null.
 */

export interface SessionProblem {
  code: string;
  message: string;
  param: string;
}

const GA_KEYS = new Set([
  "type",
  "model",
  "instructions",
  "output_modalities",
  "audio",
  "tools",
  "tool_choice",
  "max_output_tokens",
  "include",
  "tracing",
  "truncation",
  "prompt",
  "reasoning",
  "parallel_tool_calls",
]);
const AUDIO_FORMAT_TYPES = new Set(["audio/pcm", "audio/pcmu", "audio/pcma"]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const unknown = (param: string): SessionProblem => ({
  code: "unknown_parameter",
  message: `Unknown parameter: '${param}'.`,
  param,
});
const invalid = (param: string, message: string): SessionProblem => ({ code: "invalid_value", message, param });

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function checkFormat(value: unknown, param: string): SessionProblem | null {
  if (value === undefined) return null;
  if (!isObject(value) || typeof value["type"] !== "string" || !AUDIO_FORMAT_TYPES.has(value["type"])) {
    return invalid(param, `Invalid value for '${param}': expected {type: "audio/pcm", rate: 24000} | {type: "audio/pcmu"} | {type: "audio/pcma"}.`);
  }
  if (value["type"] === "audio/pcm" && value["rate"] !== 24000) {
    return invalid(`${param}.rate`, "Only a rate of 24000 is supported for audio/pcm.");
  }
  return null;
}

function checkTurnDetection(value: unknown): SessionProblem | null {
  const param = "session.audio.input.turn_detection";
  if (value === undefined || value === null) return null;
  if (!isObject(value) || (value["type"] !== "server_vad" && value["type"] !== "semantic_vad")) {
    return invalid(param, `Invalid value for '${param}.type'.`);
  }
  const threshold = value["threshold"];
  if (threshold !== undefined && (typeof threshold !== "number" || threshold < 0 || threshold > 1)) {
    return invalid(`${param}.threshold`, "threshold must be between 0 and 1.");
  }
  for (const key of ["create_response", "interrupt_response"]) {
    if (value[key] !== undefined && typeof value[key] !== "boolean") return invalid(`${param}.${key}`, `${key} must be a boolean.`);
  }
  for (const key of ["prefix_padding_ms", "silence_duration_ms"]) {
    const ms = value[key];
    if (ms !== undefined && (!Number.isInteger(ms) || (ms as number) < 0)) return invalid(`${param}.${key}`, `${key} must be a non-negative integer.`);
  }
  return null;
}

function checkTools(tools: unknown): SessionProblem | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return invalid("session.tools", "tools must be an array.");
  for (const [i, tool] of tools.entries()) {
    const param = `session.tools[${i}]`;
    if (!isObject(tool) || tool["type"] !== "function") return invalid(`${param}.type`, `Missing or invalid '${param}.type': expected 'function'.`);
    if (typeof tool["name"] !== "string" || !TOOL_NAME.test(tool["name"])) {
      return invalid(`${param}.name`, `Invalid '${param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`);
    }
    if (tool["parameters"] !== undefined && !isObject(tool["parameters"])) return invalid(`${param}.parameters`, "parameters must be a JSON schema object.");
    for (const key of Object.keys(tool)) {
      if (!["type", "name", "description", "parameters"].includes(key)) return unknown(`${param}.${key}`);
    }
  }
  return null;
}

export function checkSessionUpdate(session: unknown, connectedModel: string): SessionProblem | null {
  if (!isObject(session)) return invalid("session", "Missing required parameter: 'session'.");
  for (const key of Object.keys(session)) if (!GA_KEYS.has(key)) return unknown(`session.${key}`);
  if (session["type"] !== "realtime") {
    return { code: "missing_required_parameter", message: "Missing required parameter: 'session.type'.", param: "session.type" };
  }
  if (session["model"] !== undefined && session["model"] !== connectedModel) {
    return invalid("session.model", "The model of a session cannot be changed.");
  }
  if (session["instructions"] !== undefined && typeof session["instructions"] !== "string") {
    return invalid("session.instructions", "instructions must be a string.");
  }
  const modalities = session["output_modalities"];
  if (
    modalities !== undefined &&
    (!Array.isArray(modalities) || modalities.length !== 1 || (modalities[0] !== "audio" && modalities[0] !== "text"))
  ) {
    return invalid("session.output_modalities", "output_modalities must be ['audio'] or ['text'].");
  }
  const audio = session["audio"];
  if (audio !== undefined) {
    if (!isObject(audio)) return invalid("session.audio", "audio must be an object.");
    for (const key of Object.keys(audio)) if (key !== "input" && key !== "output") return unknown(`session.audio.${key}`);
    const input = audio["input"];
    if (input !== undefined) {
      if (!isObject(input)) return invalid("session.audio.input", "audio.input must be an object.");
      for (const key of Object.keys(input)) {
        if (!["format", "transcription", "turn_detection", "noise_reduction"].includes(key)) return unknown(`session.audio.input.${key}`);
      }
      const problem = checkFormat(input["format"], "session.audio.input.format") ?? checkTurnDetection(input["turn_detection"]);
      if (problem) return problem;
      const transcription = input["transcription"];
      if (transcription !== undefined && transcription !== null && (!isObject(transcription) || typeof transcription["model"] !== "string")) {
        return invalid("session.audio.input.transcription.model", "transcription.model must be a string.");
      }
    }
    const output = audio["output"];
    if (output !== undefined) {
      if (!isObject(output)) return invalid("session.audio.output", "audio.output must be an object.");
      for (const key of Object.keys(output)) {
        if (!["format", "voice", "speed"].includes(key)) return unknown(`session.audio.output.${key}`);
      }
      const problem = checkFormat(output["format"], "session.audio.output.format");
      if (problem) return problem;
      if (output["voice"] !== undefined && typeof output["voice"] !== "string") return invalid("session.audio.output.voice", "voice must be a string.");
    }
  }
  const toolProblem = checkTools(session["tools"]);
  if (toolProblem) return toolProblem;
  const choice = session["tool_choice"];
  if (choice !== undefined && !isObject(choice) && !["auto", "none", "required"].includes(choice as string)) {
    return invalid("session.tool_choice", "tool_choice must be auto, none, required or a tool.");
  }
  const max = session["max_output_tokens"];
  if (max !== undefined && max !== "inf" && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= 4096)) {
    return invalid("session.max_output_tokens", "max_output_tokens must be 'inf' or an integer from 1 to 4096.");
  }
  return null;
}

/** Beta-era fields of `response.create.response` refused by GA. */
export function checkResponseCreate(response: unknown): SessionProblem | null {
  if (response === undefined) return null;
  if (!isObject(response)) return invalid("response", "response must be an object.");
  const allowed = [
    "instructions",
    "tools",
    "tool_choice",
    "output_modalities",
    "audio",
    "max_output_tokens",
    "conversation",
    "input",
    "metadata",
    "prompt",
    "reasoning",
    "parallel_tool_calls",
  ];
  for (const key of Object.keys(response)) if (!allowed.includes(key)) return unknown(`response.${key}`);
  return null;
}

/**
 * The whole GA session a browser call asks for with the spec's constants (24 kHz PCM both ways,
 * voice marin, server VAD), written out here rather than taken from the engine's builder.
 */
export const specBrowserSession = (instructions: string, tools: unknown) => ({
  type: "realtime",
  model: "gpt-realtime-2.1",
  instructions,
  output_modalities: ["audio"],
  audio: {
    input: {
      format: { type: "audio/pcm", rate: 24000 },
      transcription: { model: "gpt-4o-mini-transcribe" },
      turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 1000, create_response: true, interrupt_response: false },
    },
    output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin" },
  },
  tools,
  tool_choice: "auto",
  max_output_tokens: "inf",
});
