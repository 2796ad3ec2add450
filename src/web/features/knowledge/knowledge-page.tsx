import { BookOpen, Info } from "lucide-react";
import { useState, type FormEvent } from "react";
import { KNOWLEDGE_TEXTS } from "@shared/knowledge";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { LoadError } from "@/components/page-states";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { Spinner } from "@/components/ui/spinner";
import { useCan } from "@/lib/use-membership";
import { cn } from "@/lib/utils";
import { BasePanel } from "./base-panel";
import { useCreateBase, useDeleteBase, useKnowledgeBases, useKnowledgeStatus } from "./use-knowledge";
import type { KnowledgeBase } from "@shared/knowledge";

/** The Knowledge page: bases on the left, the chosen one's documents, adding and search on the right. */
export function KnowledgePage() {
  const bases = useKnowledgeBases();
  const status = useKnowledgeStatus();
  const build = useCan("build");
  const create = useCreateBase();
  const remove = useDeleteBase();
  const [selected, setSelected] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [deleting, setDeleting] = useState<KnowledgeBase | null>(null);

  const list = bases.data ?? [];
  const current = list.find((b) => b.id === selected) ?? list[0] ?? null;

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const created = await create.mutateAsync({ name });
      setName("");
      setSelected(created.id);
      toast.success("Knowledge base created");
    } catch (err) {
      toastFailure("Failed to create knowledge base", err);
    }
  };

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <div className="grid gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">{KNOWLEDGE_TEXTS.title}</h1>
        <p className="text-sm text-muted-foreground">{KNOWLEDGE_TEXTS.intro}</p>
      </div>
      {status.data?.notice && (
        <p role="status" className="flex items-start gap-2 rounded-md border bg-muted/40 px-3 py-2 text-sm">
          <Info className="mt-0.5 size-4 shrink-0" />
          {status.data.notice}
        </p>
      )}
      {bases.isPending ? (
        <Spinner />
      ) : bases.isError ? (
        <LoadError what="knowledge bases" message={bases.error.message} onRetry={() => void bases.refetch()} />
      ) : (
        <div className="grid gap-6 md:grid-cols-[16rem_1fr]">
          <nav aria-label="Knowledge bases" className="grid content-start gap-2">
            {list.length === 0 && <p className="text-sm text-muted-foreground">No knowledge bases yet.</p>}
            {list.map((b) => (
              <button
                key={b.id}
                type="button"
                aria-current={current?.id === b.id ? "true" : undefined}
                onClick={() => setSelected(b.id)}
                className={cn("grid rounded-md border px-3 py-2 text-left text-sm hover:bg-muted", current?.id === b.id && "border-primary bg-muted")}
              >
                <span className="flex items-center gap-2 font-medium">
                  <BookOpen className="size-4" />
                  {b.name}
                </span>
                <span className="text-xs text-muted-foreground">
                  {b.document_count} document{b.document_count === 1 ? "" : "s"} · {b.chunk_count} passage{b.chunk_count === 1 ? "" : "s"}
                </span>
              </button>
            ))}
            {build && (
              <form onSubmit={onCreate} className="grid gap-2 pt-2">
                <Input aria-label="New knowledge base name" placeholder="New knowledge base" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
                <Button type="submit" disabled={!name.trim() || create.isPending}>
                  Create knowledge base
                </Button>
              </form>
            )}
          </nav>
          {current ? (
            <BasePanel key={current.id} base={current} canBuild={build} onDelete={() => setDeleting(current)} />
          ) : (
            <p className="text-sm text-muted-foreground">Create a knowledge base, then add your FAQ, policies and price lists to it.</p>
          )}
        </div>
      )}
      <ConfirmDeleteDialog
        item={deleting}
        title="Delete knowledge base?"
        consequence="will be deleted permanently with its documents. Assistants using it stop finding its passages."
        onOpenChange={(open) => !open && setDeleting(null)}
        onConfirm={(b) => remove.mutateAsync(b.id)}
        toasts={{ deleted: "Knowledge base deleted", failed: "Failed to delete knowledge base" }}
      />
    </section>
  );
}
