import { DEMO_REQUESTS_LIST_LIMIT, type DemoRequestCreated, type DemoRequestInput, type DemoRequestListItem } from "../../../shared/demo-requests.ts";
import type { Db } from "../../db/client.ts";
import { notFound } from "../../errors.ts";
import { insertDemoRequest, instanceOwnerId, listDemoRequests } from "./demo-requests.repo.ts";

export interface DemoRequestsService {
  create(input: DemoRequestInput): Promise<DemoRequestCreated>;
  /** The requests received, newest first: for the instance's owner only (anyone else: 404). */
  list(userId: string): Promise<DemoRequestListItem[]>;
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

    async list(userId) {
      if ((await instanceOwnerId(db)) !== userId) throw notFound("Demo requests");
      const rows = await listDemoRequests(db, DEMO_REQUESTS_LIST_LIMIT);
      return rows.map((row) => ({
        id: row.id,
        created_at: row.createdAt.toISOString(),
        first_name: row.firstName,
        last_name: row.lastName,
        company: row.company,
        work_email: row.workEmail,
        role: row.role,
        phone_number: row.phoneNumber,
        location: row.location,
        yearly_call_volume: row.yearlyCallVolume,
        comments: row.comments,
      }));
    },
  };
}
