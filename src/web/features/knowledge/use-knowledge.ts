import { useEffect, useRef } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { KnowledgeBase, KnowledgeDocument, KnowledgeSearchResult, KnowledgeStatus } from "@shared/knowledge";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const basePath = (id: string) => `/api/knowledge-bases/${encodeURIComponent(id)}`;

export function useKnowledgeBases() {
  return useQuery({ queryKey: queryKeys.knowledgeBases, queryFn: () => apiList<KnowledgeBase>("/api/knowledge-bases") });
}

export function useKnowledgeStatus() {
  return useQuery({ queryKey: queryKeys.knowledgeStatus, queryFn: () => api<KnowledgeStatus>("/api/knowledge-bases/status") });
}

/** Polled while a document is queued or processing, so its progress and outcome show without a reload. */
export function useDocuments(baseId: string | null) {
  const queryClient = useQueryClient();
  const documents = useQuery({
    queryKey: queryKeys.knowledgeDocuments(baseId ?? ""),
    enabled: baseId !== null,
    queryFn: () => apiList<KnowledgeDocument>(`${basePath(baseId!)}/documents`),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === "queued" || d.status === "processing") ? 1000 : false),
  });
  // A document that settles changes its base's counts of documents and passages in the list beside it.
  const settled = documents.data?.map((d) => `${d.id}:${d.status}:${d.chunk_count ?? ""}`).join();
  const seen = useRef(settled);
  useEffect(() => {
    if (seen.current !== undefined && settled !== seen.current) void queryClient.invalidateQueries({ queryKey: queryKeys.knowledgeBases });
    seen.current = settled;
  }, [settled, queryClient]);
  return documents;
}

function useInvalidate(baseId?: string) {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.knowledgeBases });
    if (baseId) void queryClient.invalidateQueries({ queryKey: queryKeys.knowledgeDocuments(baseId) });
  };
}

export function useCreateBase() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (input: { name: string; description?: string }) => api<KnowledgeBase>("/api/knowledge-bases", { method: "POST", body: input }), onSuccess: invalidate });
}

export function useDeleteBase() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>(basePath(id), { method: "DELETE" }),
    // Assistants drop a deleted base from what they use.
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.knowledgeBases });
      void queryClient.invalidateQueries({ queryKey: queryKeys.assistants });
    },
  });
}

export type NewDocument = { kind: "file"; file: File } | { kind: "url"; url: string; refresh: "never" | "daily" | "weekly" } | { kind: "text"; name: string; text: string };

export function useAddDocument(baseId: string) {
  const invalidate = useInvalidate(baseId);
  return useMutation({
    mutationFn: (doc: NewDocument) => {
      if (doc.kind === "file") {
        const form = new FormData();
        form.append("file", doc.file);
        return api<KnowledgeDocument>(`${basePath(baseId)}/documents`, { method: "POST", body: form });
      }
      const body = doc.kind === "url" ? { url: doc.url, refresh: doc.refresh } : { name: doc.name, text: doc.text };
      return api<KnowledgeDocument>(`${basePath(baseId)}/documents`, { method: "POST", body });
    },
    onSuccess: invalidate,
  });
}

export function useDocumentAction(baseId: string) {
  const invalidate = useInvalidate(baseId);
  return useMutation({
    mutationFn: ({ doc, action, file }: { doc: KnowledgeDocument; action: "reprocess" | "delete" | "replace"; file?: File }) => {
      const path = `${basePath(baseId)}/documents/${encodeURIComponent(doc.id)}`;
      if (action === "delete") return api<null>(path, { method: "DELETE" });
      if (action === "reprocess") return api<KnowledgeDocument>(`${path}/reprocess`, { method: "POST" });
      const form = new FormData();
      form.append("file", file!);
      return api<KnowledgeDocument>(path, { method: "PUT", body: form });
    },
    onSuccess: invalidate,
  });
}

export function useSearch(baseId: string) {
  return useMutation({ mutationFn: (query: string) => api<KnowledgeSearchResult>(`${basePath(baseId)}/search`, { method: "POST", body: { query, limit: 5 } }) });
}
