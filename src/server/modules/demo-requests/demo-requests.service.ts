import type { DemoRequestCreated, DemoRequestInput } from "../../../shared/demo-requests.ts";
import type { Db } from "../../db/client.ts";
import { insertDemoRequest } from "./demo-requests.repo.ts";

export interface DemoRequestsService {
  create(input: DemoRequestInput): Promise<DemoRequestCreated>;
}

export interface DemoRequestsServiceDeps {
  db: Db;
}

export function createDemoRequestsService({ db }: DemoRequestsServiceDeps): DemoRequestsService {
  return {
    async create(input) {
      const row = await insertDemoRequest(db, {
        firstName: input.first_name,
        lastName: input.last_name,
        company: input.company,
        workEmail: input.work_email,
        role: input.role,
        phoneNumber: input.phone_number,
        location: input.location,
        yearlyCallVolume: input.yearly_call_volume,
        // Spec §3: comments are null when left empty (the schema has already trimmed them).
        comments: input.comments ? input.comments : null,
      });
      return { id: row.id, created_at: row.createdAt.toISOString() };
    },
  };
}
