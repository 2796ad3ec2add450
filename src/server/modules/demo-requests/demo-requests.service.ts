import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { DemoRequestCreated, DemoRequestInput, DemoRequestListItem } from "../../../shared/demo-requests.ts";
import type { Db } from "../../db/client.ts";
import { notFound } from "../../errors.ts";
import { mapPage } from "../../http/pages.ts";
import { insertDemoRequest, instanceOwnerId, pageDemoRequests } from "./demo-requests.repo.ts";

export interface DemoRequestsService {
  create(input: DemoRequestInput): Promise<DemoRequestCreated>;
  /** The requests received, newest first: for the instance's owner only (anyone else: 404). */
  list(userId: string, query: PageQuery): Promise<Page<DemoRequestListItem>>;
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

    async list(userId, query) {
      if ((await instanceOwnerId(db)) !== userId) throw notFound("Demo requests");
      return mapPage(await pageDemoRequests(db, query), (rows) =>
        rows.map((row) => ({
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
        })),
      );
    },
  };
}
