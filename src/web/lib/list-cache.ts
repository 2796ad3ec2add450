import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * A list page's cache after its own change: the change shows at once, and the list is read again
 * behind it (the server's order and anything it changed alongside).
 */
function change<T>(client: QueryClient, key: QueryKey, update: (list: T[] | undefined) => T[] | undefined) {
  client.setQueryData<T[]>(key, update);
  void client.invalidateQueries({ queryKey: key });
}

/** A created row goes first (once, even if a refetch already brought it). */
export const listCreated = <T extends { id: string }>(client: QueryClient, key: QueryKey, created: T) =>
  change<T>(client, key, (list) => [created, ...(list ?? []).filter((row) => row.id !== created.id)]);

export const listUpdated = <T extends { id: string }>(client: QueryClient, key: QueryKey, updated: T) =>
  change<T>(client, key, (list) => list?.map((row) => (row.id === updated.id ? updated : row)));

export const listDeleted = <T extends { id: string }>(client: QueryClient, key: QueryKey, id: string) =>
  change<T>(client, key, (list) => list?.filter((row) => row.id !== id));
