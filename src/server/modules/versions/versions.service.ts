/**
 * Assistant versions (docs/decisions/040-assistant-versions.md). The assistants row is the draft;
 * publishing copies its content into the next numbered, immutable version. Phone numbers run the
 * live version (latest, or the one pinned on the number); the browser Test Call runs the draft.
 */
import { isUuid } from "../../../shared/ids.ts";
import {
  VERSION_MESSAGES,
  type AssistantContent,
  type AssistantVersion,
  type AssistantVersionPage,
  type AssistantVersionSummary,
  type DraftState,
  type PublishInput,
} from "../../../shared/versions.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import { mapPage } from "../../http/pages.ts";
import type { AssistantRow } from "../assistants/assistants.repo.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import { contentOf, sameContent } from "./version-content.ts";
import * as repo from "./versions.repo.ts";

/** Which content a call runs: the draft, the live version, or a version pinned on a number. */
export type VersionChoice = "draft" | "live" | { pinned: number | null };

/** What a call needs of an assistant: who it is, which version and what that version holds. */
export interface RunnableAssistant {
  id: string;
  name: string;
  /** null: the draft. */
  version: number | null;
  content: AssistantContent;
}

export interface VersionsService {
  /** A page of the assistant's versions, newest first. */
  list(organizationId: string, assistantId: string, query: PageQuery): Promise<AssistantVersionPage>;
  /** Every assistant's draft against its latest published version. */
  drafts(organizationId: string, query: PageQuery): Promise<Page<DraftState>>;
  get(organizationId: string, assistantId: string, n: string): Promise<AssistantVersion>;
  publish(organizationId: string, assistantId: string, input: PublishInput & { withFailures?: boolean }, by: string | null): Promise<AssistantVersionSummary>;
  rollback(organizationId: string, assistantId: string, version: number, by: string | null): Promise<AssistantVersionSummary>;
  /** A new assistant is published as v1 when first saved. */
  publishFirst(organizationId: string, assistantId: string, by: string | null): Promise<void>;
  /** The content a call runs; null when the assistant is not the user's (never throws 404). */
  forCall(organizationId: string, assistantId: string, choice: VersionChoice): Promise<RunnableAssistant | null>;
  /** Whether version `n` of the assistant exists (pinning a number checks it). */
  exists(organizationId: string, assistantId: string, n: number): Promise<boolean>;
}

export function createVersionsService(deps: { db: Db; assistants: AssistantsService }): VersionsService {
  const { db, assistants } = deps;

  async function draftOr404(organizationId: string, assistantId: string): Promise<AssistantRow> {
    const row = await assistants.forCall(organizationId, assistantId);
    if (!row) throw notFound("Assistant");
    return row;
  }

  async function summaryOf(organizationId: string, assistantId: string, n: number): Promise<AssistantVersionSummary> {
    const row = await repo.findVersion(db, organizationId, assistantId, n);
    // Written a moment ago by this request: only a concurrent delete of the assistant gets here.
    if (!row) throw notFound("Assistant");
    return toSummary(row);
  }

  return {
    async list(organizationId, assistantId, query) {
      const draft = await draftOr404(organizationId, assistantId);
      const [page, live] = await Promise.all([repo.pageVersions(db, organizationId, assistantId, query), repo.findVersion(db, organizationId, assistantId, null)]);
      return {
        data: page.data.map(toSummary),
        next_cursor: page.next_cursor,
        live_version: live?.version ?? null,
        draft_changed: live === null || !sameContent(live.content, contentOf(draft)),
      };
    },

    async drafts(organizationId, query) {
      return mapPage(await assistants.pageForCall(organizationId, query), async (rows) => {
        const latest = await repo.latestVersions(
          db,
          organizationId,
          rows.map((r) => r.id),
        );
        const byAssistant = new Map(latest.map((v) => [v.assistantId, v]));
        return rows.map((draft) => {
          const live = byAssistant.get(draft.id);
          return { assistant_id: draft.id, live_version: live?.version ?? null, draft_changed: !live || !sameContent(live.content, contentOf(draft)) };
        });
      });
    },

    async get(organizationId, assistantId, n) {
      await draftOr404(organizationId, assistantId);
      const version = /^\d{1,9}$/.test(n) ? Number(n) : NaN;
      const row = Number.isInteger(version) ? await repo.findVersion(db, organizationId, assistantId, version) : null;
      if (!row) throw new AppError(404, "not_found", VERSION_MESSAGES.notFound);
      return { ...toSummary(row), content: row.content };
    },

    async publish(organizationId, assistantId, input, by) {
      const draft = await draftOr404(organizationId, assistantId);
      const n = await repo.insertNextVersion(db, organizationId, assistantId, {
        content: contentOf(draft),
        note: input.note,
        publishedBy: by,
        publishedWithFailures: input.withFailures ?? false,
        rolledBackFrom: null,
      });
      return summaryOf(organizationId, assistantId, n);
    },

    async rollback(organizationId, assistantId, version, by) {
      await draftOr404(organizationId, assistantId);
      const old = await repo.findVersion(db, organizationId, assistantId, version);
      if (!old) throw new AppError(400, "unknown_version", VERSION_MESSAGES.unknownVersion(version));
      // The draft is left as it is: a roll back changes what callers hear, not what is being edited.
      const n = await repo.insertNextVersion(db, organizationId, assistantId, {
        content: old.content,
        note: null,
        publishedBy: by,
        publishedWithFailures: false,
        rolledBackFrom: version,
      });
      return summaryOf(organizationId, assistantId, n);
    },

    async publishFirst(organizationId, assistantId, by) {
      const draft = await assistants.forCall(organizationId, assistantId);
      if (!draft) return;
      await repo.insertNextVersion(db, organizationId, assistantId, { content: contentOf(draft), note: null, publishedBy: by, publishedWithFailures: false, rolledBackFrom: null });
    },

    async forCall(organizationId, assistantId, choice) {
      const draft = await assistants.forCall(organizationId, assistantId);
      if (!draft) return null;
      const who = { id: draft.id, name: draft.name };
      if (choice === "draft") return { ...who, version: null, content: contentOf(draft) };
      const pinned = choice === "live" ? null : choice.pinned;
      // A pin that names no version (it cannot be made so, but a restored backup could) runs the latest.
      const row = (pinned !== null ? await repo.findVersion(db, organizationId, assistantId, pinned) : null) ?? (await repo.findVersion(db, organizationId, assistantId, null));
      // Without any published version (its first publish failed) the assistant runs its draft.
      return row ? { ...who, version: row.version, content: row.content } : { ...who, version: null, content: contentOf(draft) };
    },

    async exists(organizationId, assistantId, n) {
      return isUuid(assistantId) && (await repo.findVersion(db, organizationId, assistantId, n)) !== null;
    },
  };
}

function toSummary(row: repo.VersionSummaryRow): AssistantVersionSummary {
  return {
    version: row.version,
    note: row.note,
    published_at: row.createdAt.toISOString(),
    published_by: row.publishedById ? { id: row.publishedById, name: row.publishedByName ?? "" } : null,
    published_with_failures: row.publishedWithFailures,
    rolled_back_from: row.rolledBackFrom,
  };
}
