import { GETTING_STARTED_STEPS, type GettingStarted, type GettingStartedStep } from "../../../shared/getting-started.ts";
import type { ModuleContext } from "../../context.ts";
import { progressOf } from "./getting-started.repo.ts";

export interface GettingStartedService {
  /** Each step of the first hour, ticked from the organisation's own data (never a flag a user sets). */
  progress(organizationId: string): Promise<GettingStarted>;
}

export function createGettingStartedService({ db }: Pick<ModuleContext, "db">): GettingStartedService {
  return {
    async progress(organizationId) {
      const has = await progressOf(db, organizationId);
      const done: Record<GettingStartedStep, boolean> = {
        openai_key: has.openaiKey,
        assistant: has.assistant,
        test_call: has.testCall,
        twilio: has.twilio,
        phone_number: has.number,
        real_call: has.realCall,
      };
      const steps = GETTING_STARTED_STEPS.map((id) => ({ id, done: done[id] }));
      return { steps, complete: steps.every((s) => s.done) };
    },
  };
}
