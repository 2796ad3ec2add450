import { useMutation, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { toast } from "@/components/ui/sonner";
import { api, apiList } from "@/lib/api";

interface SettingsListTexts<C> {
  /** The toast after a create. */
  created: string;
  /** The toast after a delete. */
  removed: string;
  onCreated: (created: C) => void;
  /** A refused create, in the server's words. */
  onCreateError: (message: string) => void;
  onRemoveError: (err: unknown) => void;
}

/**
 * A settings card's list of what the organisation has (API keys, providers): read, create
 * (POST to the list's path) and delete (DELETE to the row's), each change read back at once.
 */
export function useSettingsList<T extends { id: string }, C = T>(queryKey: QueryKey, path: string, texts: SettingsListTexts<C>) {
  const client = useQueryClient();
  const list = useQuery({ queryKey, queryFn: () => apiList<T>(path) });
  const refresh = () => client.invalidateQueries({ queryKey });

  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<C>(path, { method: "POST", body }),
    onSuccess: (created) => {
      texts.onCreated(created);
      toast.success(texts.created);
      void refresh();
    },
    onError: (err) => texts.onCreateError(err instanceof Error ? err.message : String(err)),
  });

  const remove = async (row: T) => {
    try {
      await api<unknown>(`${path}/${row.id}`, { method: "DELETE" });
      toast.success(texts.removed);
      void refresh();
    } catch (err) {
      texts.onRemoveError(err);
    }
  };

  return { list, create, remove };
}
