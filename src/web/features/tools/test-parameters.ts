import type { Tool } from "@shared/tools";

/** One input of the Test panel, read from the tool's JSON schema. */
export interface TestParameter {
  name: string;
  type: string;
  description: string | undefined;
  required: boolean;
}

/** The parameters the tool's schema declares, required ones first (then in schema order). */
export function testParametersOf(tool: Tool): TestParameter[] {
  const properties = tool.parameters.properties;
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return [];
  const required = new Set(Array.isArray(tool.parameters.required) ? (tool.parameters.required as unknown[]).map(String) : []);
  const list = Object.entries(properties as Record<string, unknown>).map(([name, raw]) => {
    const spec = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    return {
      name,
      type: typeof spec.type === "string" ? spec.type : "string",
      description: typeof spec.description === "string" && spec.description.trim() !== "" ? spec.description : undefined,
      required: required.has(name),
    };
  });
  return [...list.filter((p) => p.required), ...list.filter((p) => !p.required)];
}

export function placeholderFor(type: string): string {
  switch (type) {
    case "number":
      return "e.g. 42.5";
    case "integer":
      return "e.g. 42";
    case "boolean":
      return "true or false";
    case "object":
      return '{"key": "value"}';
    case "array":
      return '["a", "b"]';
    default:
      return "Enter a value";
  }
}

type Converted = { ok: true; value: unknown } | { ok: false; error: string };

/** Turns the text typed for a parameter into the JSON value its schema type asks for. */
export function convertValue(type: string, text: string): Converted {
  const trimmed = text.trim();
  switch (type) {
    case "number": {
      const n = Number(trimmed);
      return trimmed !== "" && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, error: "Must be a number" };
    }
    case "integer": {
      const n = Number(trimmed);
      return trimmed !== "" && Number.isInteger(n) ? { ok: true, value: n } : { ok: false, error: "Must be a whole number" };
    }
    case "boolean": {
      const lower = trimmed.toLowerCase();
      if (lower === "true") return { ok: true, value: true };
      if (lower === "false") return { ok: true, value: false };
      return { ok: false, error: "Must be true or false" };
    }
    case "object":
    case "array": {
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch {
        return { ok: false, error: "Must be valid JSON" };
      }
      const isArray = Array.isArray(value);
      if (type === "array" && !isArray) return { ok: false, error: "Must be a JSON array" };
      if (type === "object" && (isArray || value === null || typeof value !== "object")) return { ok: false, error: "Must be a JSON object" };
      return { ok: true, value };
    }
    default:
      // Strings keep what was typed, spaces included: they may matter to the endpoint.
      return { ok: true, value: text };
  }
}

/**
 * The `parameters` of an execution from the typed values: blank optional inputs are left out,
 * blank required ones and unconvertible values become errors keyed by parameter name.
 */
export function buildTestParameters(
  parameters: TestParameter[],
  values: Record<string, string>,
): { parameters: Record<string, unknown>; errors: Record<string, string> } {
  const result: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const p of parameters) {
    const text = values[p.name] ?? "";
    if (text.trim() === "") {
      if (p.required) errors[p.name] = `${p.name} is required`;
      continue;
    }
    const converted = convertValue(p.type, text);
    if (converted.ok) result[p.name] = converted.value;
    else errors[p.name] = converted.error;
  }
  return { parameters: result, errors };
}
