import { useMutation, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { api } from "@/lib/api";

/**
 * One organisation settings document read with GET and replaced with PUT at the same path; the
 * saved answer goes straight into the cache, so the card shows what the server kept.
 */
export function useSettingsDocument<T extends Record<string, unknown>>(queryKey: QueryKey, path: string) {
  const client = useQueryClient();
  const current = useQuery({ queryKey, queryFn: () => api<T>(path) });
  const save = useMutation({
    mutationFn: (body: T) => api<T>(path, { method: "PUT", body }),
    onSuccess: (saved) => client.setQueryData(queryKey, saved),
  });
  return { current, save };
}
