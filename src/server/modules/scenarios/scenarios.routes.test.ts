import { describe, expect, it } from "vitest";
import { errorOf, useTestApp, expectBody } from "../../../../tests/harness.ts";
import type { Assistant } from "../../../shared/assistants.ts";
import type { Page } from "../../../shared/pages.ts";
import { DEFAULT_MAX_TURNS, MAX_SCENARIOS, SCENARIO_MESSAGES, type Scenario } from "../../../shared/scenarios.ts";
import { scenarios } from "../../db/schema.ts";

/** Test scenarios through the API: create, list, edit, delete, validation in the form's words, other organisations. */

const file = useTestApp({ users: ["Alice", "Bob"] });
const alice = () => file.as(file.users.Alice);
const bob = () => file.as(file.users.Bob);

async function newAssistant(): Promise<Assistant> {
  return expectBody(await alice().post("/api/assistants", { name: "Front desk", instructions: "Help with orders." }), 201);
}

const ADA = { name: "Late order", persona: "You are Ada, annoyed.", goal: "Learn where order 42 is", rubric: "The assistant looks the order up and gives its status." };

describe("test scenarios", () => {
  it("creates with defaults, lists, edits and deletes", async () => {
    const a = await newAssistant();
    const created = await alice().post(`/api/assistants/${a.id}/scenarios`, { ...ADA, tool_answers: { lookup_order: { status: "shipped" } } });
    expect(created.statusCode, created.body).toBe(201);
    const s = created.json<Scenario>();
    expect(s).toMatchObject({ ...ADA, assistant_id: a.id, facts: null, max_turns: DEFAULT_MAX_TURNS, tool_answers: { lookup_order: { status: "shipped" } }, caller_turns: null, source: "manual", status: null, source_call_id: null });

    expect((await alice().get(`/api/assistants/${a.id}/scenarios`)).json<Page<Scenario>>().data.map((x) => x.id)).toEqual([s.id]);

    const accepted = await alice().patch(`/api/assistants/${a.id}/scenarios/${s.id}`, { status: "accepted" });
    expect([accepted.statusCode, errorOf(accepted).message]).toEqual([400, SCENARIO_MESSAGES.onlySuggested]);
    const edited = await alice().patch(`/api/assistants/${a.id}/scenarios/${s.id}`, { max_turns: 4, facts: "Order 42, placed on Monday" });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json<Scenario>()).toMatchObject({ name: ADA.name, max_turns: 4, facts: "Order 42, placed on Monday" });

    expect((await alice().delete(`/api/assistants/${a.id}/scenarios/${s.id}`)).statusCode).toBe(204);
    expect((await alice().get(`/api/assistants/${a.id}/scenarios`)).json().data).toEqual([]);
    expect(errorOf(await alice().delete(`/api/assistants/${a.id}/scenarios/${s.id}`)).message).toBe(SCENARIO_MESSAGES.notFound);
  });

  it("a scripted caller needs no persona or goal", async () => {
    const a = await newAssistant();
    const res = await alice().post(`/api/assistants/${a.id}/scenarios`, { name: "Replay", rubric: "Gives the status", caller_turns: ["Hi, where is order 42?", "Thanks"] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<Scenario>()).toMatchObject({ persona: "", goal: "", caller_turns: ["Hi, where is order 42?", "Thanks"] });
    // Taking the script away leaves a caller nobody described.
    const cleared = await alice().patch(`/api/assistants/${a.id}/scenarios/${res.json<Scenario>().id}`, { caller_turns: null });
    expect(cleared.statusCode).toBe(400);
    expect(errorOf(cleared).message).toBe(SCENARIO_MESSAGES.personaRequired);
  });

  it("refuses bad input in the form's words and stores nothing", async () => {
    const a = await newAssistant();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ADA, name: " " }, SCENARIO_MESSAGES.nameRequired],
      [{ ...ADA, persona: "" }, SCENARIO_MESSAGES.personaRequired],
      [{ ...ADA, goal: "" }, SCENARIO_MESSAGES.goalRequired],
      [{ ...ADA, rubric: "" }, SCENARIO_MESSAGES.rubricRequired],
      [{ ...ADA, max_turns: 0 }, SCENARIO_MESSAGES.maxTurns],
      [{ ...ADA, max_turns: 2.5 }, SCENARIO_MESSAGES.maxTurns],
      [{ ...ADA, tool_answers: [1] }, SCENARIO_MESSAGES.toolAnswers],
      [{ ...ADA, caller_turns: [] }, SCENARIO_MESSAGES.callerTurns],
      [{ ...ADA, caller_turns: [""] }, SCENARIO_MESSAGES.callerTurns],
    ];
    for (const [body, message] of cases) {
      const res = await alice().post(`/api/assistants/${a.id}/scenarios`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res).message, JSON.stringify(body)).toContain(message);
    }
    expect((await alice().get(`/api/assistants/${a.id}/scenarios`)).json().data).toEqual([]);
  });

  it("holds the limit of scenarios per assistant when they are created all at once", async () => {
    const a = await newAssistant();
    // Near the limit already (rows as the API would store them), then a burst past it.
    const near = MAX_SCENARIOS - 10;
    await file.db.insert(scenarios).values(Array.from({ length: near }, (_, i) => ({ organizationId: file.users.Alice.organizationId, assistantId: a.id, ...ADA, name: `s${i}` })));
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => alice().post(`/api/assistants/${a.id}/scenarios`, { ...ADA, name: `burst ${i}` })));
    expect(burst.filter((r) => r.statusCode === 201)).toHaveLength(10);
    const refused = burst.filter((r) => r.statusCode !== 201);
    expect(refused.map((r) => [r.statusCode, errorOf(r).message])).toEqual(refused.map(() => [409, SCENARIO_MESSAGES.tooMany]));
    expect((await alice().get(`/api/assistants/${a.id}/scenarios?limit=${MAX_SCENARIOS}`)).json().data).toHaveLength(MAX_SCENARIOS);
  });

  it("another organisation's assistant or scenario is not found", async () => {
    const a = await newAssistant();
    const s = (await alice().post(`/api/assistants/${a.id}/scenarios`, ADA)).json<Scenario>();
    expect((await bob().get(`/api/assistants/${a.id}/scenarios`)).statusCode).toBe(404);
    expect((await bob().post(`/api/assistants/${a.id}/scenarios`, ADA)).statusCode).toBe(404);
    expect((await bob().patch(`/api/assistants/${a.id}/scenarios/${s.id}`, { name: "Taken" })).statusCode).toBe(404);
    expect((await bob().delete(`/api/assistants/${a.id}/scenarios/${s.id}`)).statusCode).toBe(404);
    // Bob's own assistant does not reach Alice's scenario either.
    const mine = (await bob().post("/api/assistants", { name: "Bob's" })).json<Assistant>();
    expect((await bob().patch(`/api/assistants/${mine.id}/scenarios/${s.id}`, { name: "Taken" })).statusCode).toBe(404);
    expect((await alice().get(`/api/assistants/${a.id}/scenarios`)).json<Page<Scenario>>().data[0]!.name).toBe(ADA.name);
  });
});
