/**
 * The assistant's tools as the provider sees them, and the mapping back from the name the
 * model calls to one of our tools (spec §8 "Tool resolution").
 *
 * The provider accepts function names matching ^[a-zA-Z0-9_-]{1,64}$, while our tools have
 * free-form names ("Get Weather"), so each tool is declared under a sanitised, unique name
 * ("Get_Weather") and resolution tries that name right after the exact one.
 */

/** A tool of the assistant, as the call engine needs it (a subset of the tools table). */
export interface ToolDefinition {
  id: string;
  name: string;
  description?: string | null;
  /** JSON Schema of the arguments: `{ type: "object", properties, required }`. */
  parameters?: Record<string, unknown> | null;
}

export interface ProviderFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ResolutionRule =
  | "id"
  | "exact"
  | "provider-name"
  | "capitalised"
  | "item-arguments"
  | "item-only-tool"
  | "partial"
  | "containment";

export type Resolution = { ok: true; tool: ToolDefinition; rule: ResolutionRule } | { ok: false; error: string };

const PROVIDER_NAME_MAX = 64;

/** A name the provider accepts: runs of other characters become one "_"; never empty. */
export function sanitiseToolName(name: string): string {
  const cleaned = name
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, PROVIDER_NAME_MAX);
  return cleaned === "" ? "tool" : cleaned;
}

/** "get_weather" → "Get Weather". */
export function underscoresToWords(name: string): string {
  return name
    .split("_")
    .filter((word) => word !== "")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, " ").trim();
}

function words(name: string): Set<string> {
  return new Set(normalise(name).split(" ").filter((w) => w !== ""));
}

function isSubset(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0) return false;
  for (const word of a) if (!b.has(word)) return false;
  return true;
}

function propertyNames(tool: ToolDefinition): string[] {
  const properties = tool.parameters?.["properties"];
  return properties && typeof properties === "object" ? Object.keys(properties) : [];
}

function requiredNames(tool: ToolDefinition): string[] {
  const required = tool.parameters?.["required"];
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : [];
}

export class ToolCatalog {
  readonly tools: readonly ToolDefinition[];
  private readonly providerNames = new Map<ToolDefinition, string>();

  /** `reserved`: names the engine declares itself (built-ins); a tool with such a name is declared as name_2. */
  constructor(tools: readonly ToolDefinition[], reserved: readonly string[] = []) {
    this.tools = tools;
    const taken = new Set<string>(reserved);
    for (const tool of tools) {
      const base = sanitiseToolName(tool.name);
      let candidate = base;
      for (let n = 2; taken.has(candidate); n += 1) {
        const suffix = `_${n}`;
        candidate = base.slice(0, PROVIDER_NAME_MAX - suffix.length) + suffix;
      }
      taken.add(candidate);
      this.providerNames.set(tool, candidate);
    }
  }

  providerName(tool: ToolDefinition): string {
    return this.providerNames.get(tool) ?? sanitiseToolName(tool.name);
  }

  /** The `tools` of session.update. */
  providerTools(): ProviderFunctionTool[] {
    return this.tools.map((tool) => ({
      type: "function",
      name: this.providerName(tool),
      description: tool.description ?? "",
      parameters: tool.parameters && typeof tool.parameters === "object" ? tool.parameters : { type: "object", properties: {} },
    }));
  }

  /**
   * Rules, first match wins: our declared provider name, id, exact name, underscores to
   * capitalised words, then — if the model said "item" — inference from the argument names
   * or the only tool, then partial name (one normalised name inside the other) and
   * containment (every word of one name among the words of the other, in any order).
   * The "item" rule runs before the fuzzy ones because "item" would otherwise partially
   * match any tool with "item" in its name. Within a rule the first tool in order wins.
   */
  resolve(name: string, args: unknown): Resolution {
    const found = (tool: ToolDefinition | undefined, rule: ResolutionRule): Resolution | undefined =>
      tool ? { ok: true, tool, rule } : undefined;
    const tools = this.tools;
    const wanted = normalise(name);
    // The names we declared come first: they are the only names the model was given, so
    // "Get_Weather" means the tool declared as Get_Weather ("Get Weather"), never the tool
    // *named* "Get_Weather" that had to be declared as Get_Weather_2. Then spec §8's order.
    const result =
      found(
        tools.find((t) => this.providerName(t) === name),
        "provider-name",
      ) ??
      found(
        tools.find((t) => t.id === name),
        "id",
      ) ??
      found(
        tools.find((t) => t.name === name),
        "exact",
      ) ??
      found(
        tools.find((t) => t.name === underscoresToWords(name)),
        "capitalised",
      ) ??
      (wanted === "item" ? this.resolveItem(args) : undefined) ??
      (wanted === ""
        ? undefined
        : (found(
            tools.find((t) => {
              const have = normalise(t.name);
              return have !== "" && (have.includes(wanted) || wanted.includes(have));
            }),
            "partial",
          ) ??
          found(
            tools.find((t) => isSubset(words(name), words(t.name)) || isSubset(words(t.name), words(name))),
            "containment",
          )));
    if (result) return result;
    const available = tools.map((t) => t.name).join(", ") || "none";
    return { ok: false, error: `Tool "${name}" not found. Available tools: ${available}` };
  }

  /** The tool whose parameters best match the argument names, else the only tool. */
  private resolveItem(args: unknown): Resolution | undefined {
    const keys = args && typeof args === "object" && !Array.isArray(args) ? Object.keys(args) : [];
    if (keys.length > 0) {
      let best: { tool: ToolDefinition; score: number } | undefined;
      let tie = false;
      for (const tool of this.tools) {
        const props = new Set(propertyNames(tool));
        if (!keys.every((key) => props.has(key))) continue;
        const hasRequired = requiredNames(tool).every((r) => keys.includes(r));
        // Prefer tools whose required arguments are all present, then the tightest fit.
        const score = (hasRequired ? 1 : 0) + keys.length / Math.max(props.size, 1) / 2;
        if (!best || score > best.score) {
          best = { tool, score };
          tie = false;
        } else if (score === best.score) {
          tie = true;
        }
      }
      if (best && !tie) return { ok: true, tool: best.tool, rule: "item-arguments" };
    }
    const only = this.tools.length === 1 ? this.tools[0] : undefined;
    return only ? { ok: true, tool: only, rule: "item-only-tool" } : undefined;
  }
}
