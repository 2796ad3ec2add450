import { useMutation, useQueryClient, type QueryClient, type QueryKey } from "@tanstack/react-query";
import { api } from "@/lib/api";
import { listCreated, listDeleted, listUpdated } from "@/lib/list-cache";

/**
 * The create, update and delete mutations of a list page whose rows live at `path` and are cached
 * under `key`: each shows its change in that list at once (list-cache.ts) and marks `stale` (other
 * lists that show or count these rows) to be read again.
 */
export interface ListResource {
  path: string;
  key: QueryKey;
}

const rowPath = (path: string, id: string) => `${path}/${encodeURIComponent(id)}`;

function markStale(client: QueryClient, stale: readonly QueryKey[]) {
  for (const queryKey of stale) void client.invalidateQueries({ queryKey });
}

export function useCreateInList<T extends { id: string }, I extends Record<string, unknown>>({ path, key }: ListResource, stale: readonly QueryKey[] = []) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: I) => api<T>(path, { method: "POST", body: input }),
    onSuccess: (created) => {
      listCreated(client, key, created);
      markStale(client, stale);
    },
  });
}

export function useUpdateInList<T extends { id: string }, P extends Record<string, unknown>>({ path, key }: ListResource, stale: readonly QueryKey[] = []) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: P }) => api<T>(rowPath(path, id), { method: "PATCH", body: patch }),
    onSuccess: (updated) => {
      listUpdated(client, key, updated);
      markStale(client, stale);
    },
  });
}

export function useDeleteFromList({ path, key }: ListResource, stale: readonly QueryKey[] = []) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>(rowPath(path, id), { method: "DELETE" }),
    onSuccess: (_, id) => {
      listDeleted(client, key, id);
      markStale(client, stale);
    },
  });
}
