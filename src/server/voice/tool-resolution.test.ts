import { describe, expect, it } from "vitest";
import { ToolCatalog, sanitiseToolName, underscoresToWords, type ToolDefinition } from "./tool-resolution.ts";

const weather: ToolDefinition = {
  id: "tool-weather",
  name: "Get Weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string" } }, required: ["city"] },
};
const order: ToolDefinition = {
  id: "tool-order",
  name: "Order Status Lookup",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};
const catalog = new ToolCatalog([weather, order]);

const resolved = (name: string, args: unknown = {}) => {
  const r = catalog.resolve(name, args);
  return r.ok ? [r.tool.id, r.rule] : r.error;
};

describe("provider names", () => {
  it("sanitises to ^[a-zA-Z0-9_-]{1,64}$", () => {
    expect(sanitiseToolName("Get Weather")).toBe("Get_Weather");
    expect(sanitiseToolName("Weather (v2)!")).toBe("Weather_v2");
    expect(sanitiseToolName("Météo")).toBe("M_t_o");
    expect(sanitiseToolName("???")).toBe("tool");
    expect(sanitiseToolName("x".repeat(100))).toHaveLength(64);
  });

  it("declares unique names as type function tools", () => {
    const dup = new ToolCatalog([
      { id: "a", name: "Get Weather" },
      { id: "b", name: "Get-Weather" },
      { id: "c", name: "Get Weather!" },
    ]);
    expect(dup.providerTools().map((t) => t.name)).toEqual(["Get_Weather", "Get-Weather", "Get_Weather_2"]);
    expect(dup.providerTools()[0]).toEqual({
      type: "function",
      name: "Get_Weather",
      description: "",
      parameters: { type: "object", properties: {} },
    });
    expect(catalog.providerTools()[0]).toMatchObject({ description: "Weather for a city", parameters: weather.parameters });
  });

  it("turns underscores into capitalised words", () => {
    expect(underscoresToWords("get_weather")).toBe("Get Weather");
    expect(underscoresToWords("order__status_")).toBe("Order Status");
  });
});

describe("ToolCatalog.resolve, in the order of spec §8", () => {
  it("by id", () => expect(resolved("tool-order")).toEqual(["tool-order", "id"]));
  it("by exact name", () => expect(resolved("Get Weather")).toEqual(["tool-weather", "exact"]));
  it("by the sanitised name we declared", () => expect(resolved("Order_Status_Lookup")).toEqual(["tool-order", "provider-name"]));
  it("by underscores turned into capitalised words", () => expect(resolved("get_weather")).toEqual(["tool-weather", "capitalised"]));
  it("by partial name (requested inside the tool name)", () => expect(resolved("weather")).toEqual(["tool-weather", "partial"]));
  it("by partial name (tool name inside the requested one)", () =>
    expect(resolved("get_weather_forecast_now")).toEqual(["tool-weather", "partial"]));
  it("by containment of words in any order", () => expect(resolved("lookup-order-status")).toEqual(["tool-order", "containment"]));

  it("resolves a declared name to the tool it was declared for, before any other rule", () => {
    const clash = new ToolCatalog([
      { id: "a", name: "Get Weather" },
      { id: "b", name: "Get_Weather" },
    ]);
    expect(clash.providerTools().map((t) => t.name)).toEqual(["Get_Weather", "Get_Weather_2"]);
    const first = clash.resolve("Get_Weather", {});
    const second = clash.resolve("Get_Weather_2", {});
    expect(first.ok && [first.tool.id, first.rule]).toEqual(["a", "provider-name"]);
    expect(second.ok && [second.tool.id, second.rule]).toEqual(["b", "provider-name"]);
  });

  it("prefers an earlier rule over a later one", () => {
    const tricky = new ToolCatalog([
      { id: "Get Weather", name: "Something" },
      { id: "x", name: "Get Weather" },
    ]);
    const r = tricky.resolve("Get Weather", {});
    expect(r.ok && [r.tool.name, r.rule]).toEqual(["Something", "id"]);
  });

  it('infers "item" from the argument names', () => {
    expect(resolved("item", { order_id: "42" })).toEqual(["tool-order", "item-arguments"]);
    expect(resolved("item", { city: "Paris", unit: "C" })).toEqual(["tool-weather", "item-arguments"]);
  });

  it('uses the only tool for "item" when the arguments say nothing', () => {
    const single = new ToolCatalog([weather]);
    const r = single.resolve("item", { nothing: 1 });
    expect(r.ok && r.rule).toBe("item-only-tool");
    expect(resolved("item", { nothing: 1 })).toBe('Tool "item" not found. Available tools: Get Weather, Order Status Lookup');
  });

  it("reports an unknown tool with the available ones", () => {
    expect(resolved("send_email")).toBe('Tool "send_email" not found. Available tools: Get Weather, Order Status Lookup');
    expect(new ToolCatalog([]).resolve("x", {})).toEqual({ ok: false, error: 'Tool "x" not found. Available tools: none' });
  });
});
