import { RefreshCw, Replace, Search, Trash2 } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import { DOCUMENT_ACCEPT, type KnowledgeBase, type KnowledgeDocument, type KnowledgeSearchResult } from "@shared/knowledge";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { Textarea } from "@/components/ui/textarea";
import { useAddDocument, useDocumentAction, useDocuments, useSearch, type NewDocument } from "./use-knowledge";

/** What a document's state says, in words. */
function stateText(d: KnowledgeDocument): string {
  if (d.status === "queued") return "Queued";
  if (d.status === "processing") return `Processing ${d.progress}%`;
  if (d.status === "failed") return "Failed";
  return `Ready · ${d.chunk_count} passage${d.chunk_count === 1 ? "" : "s"}${d.page_count ? ` · ${d.page_count} pages` : ""}${d.embedded ? "" : " · words only"}`;
}

export function BasePanel({ base, canBuild, onDelete }: { base: KnowledgeBase; canBuild: boolean; onDelete: () => void }) {
  const docs = useDocuments(base.id);
  const add = useAddDocument(base.id);
  const act = useDocumentAction(base.id);
  const search = useSearch(base.id);
  const [url, setUrl] = useState("");
  const [refresh, setRefresh] = useState<"never" | "daily" | "weekly">("never");
  const [pasteName, setPasteName] = useState("");
  const [pasteText, setPasteText] = useState("");
  const [query, setQuery] = useState("");
  const [result, setResult] = useState<KnowledgeSearchResult | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const replaceInput = useRef<HTMLInputElement>(null);
  const [replacing, setReplacing] = useState<KnowledgeDocument | null>(null);

  const submit = async (doc: NewDocument, reset: () => void) => {
    try {
      await add.mutateAsync(doc);
      reset();
      toast.success("Document added: it is being processed");
    } catch (err) {
      toastFailure("Failed to add document", err);
    }
  };
  const onSearch = async (e: FormEvent) => {
    e.preventDefault();
    try {
      setResult(await search.mutateAsync(query));
    } catch (err) {
      toastFailure("Search failed", err);
    }
  };
  const run = async (doc: KnowledgeDocument, action: "reprocess" | "delete" | "replace", file?: File) => {
    try {
      await act.mutateAsync({ doc, action, file });
      toast.success(action === "delete" ? "Document deleted" : action === "replace" ? "Document replaced: it is being processed" : "Document queued again");
    } catch (err) {
      toastFailure(`Failed to ${action === "reprocess" ? "re-process" : action} document`, err);
    }
  };

  return (
    <div className="grid content-start gap-6">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h2 className="text-lg font-semibold">{base.name}</h2>
          {base.description && <p className="text-sm text-muted-foreground">{base.description}</p>}
        </div>
        {canBuild && (
          <Button variant="outline" size="sm" onClick={onDelete}>
            <Trash2 /> Delete base
          </Button>
        )}
      </div>

      <form onSubmit={onSearch} className="grid gap-3" aria-label="Search this knowledge base">
        <div className="flex gap-2">
          <Input aria-label="Question" placeholder="Ask what a caller would ask…" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={1000} />
          <Button type="submit" disabled={!query.trim() || search.isPending}>
            <Search /> Search
          </Button>
        </div>
        {result && (
          <ol aria-label="Passages" className="grid gap-2">
            {result.passages.length === 0 && <li className="text-sm text-muted-foreground">No passage matches.</li>}
            {result.passages.map((p, i) => (
              <li key={`${p.document_id}-${i}`} className="rounded-md border p-3 text-sm">
                <div className="mb-1 flex flex-wrap justify-between gap-2 text-xs text-muted-foreground">
                  <span className="font-medium text-foreground">{p.location ? `${p.document_name} — ${p.location}` : p.document_name}</span>
                  <span>score {p.score.toFixed(4)}</span>
                </div>
                <p className="whitespace-pre-wrap">{p.text}</p>
              </li>
            ))}
            {result.mode === "full_text" && <li className="text-xs text-muted-foreground">Found by words only.</li>}
          </ol>
        )}
      </form>

      {canBuild && (
        <Tabs defaultValue="upload">
          <TabsList>
            <TabsTrigger value="upload">Upload</TabsTrigger>
            <TabsTrigger value="url">From a URL</TabsTrigger>
            <TabsTrigger value="paste">Paste text</TabsTrigger>
          </TabsList>
          <TabsContent value="upload" className="grid gap-2 pt-2">
            <p className="text-sm text-muted-foreground">PDF, DOCX, HTML, Markdown, text or CSV, up to 20 MB.</p>
            <Input
              ref={fileInput}
              type="file"
              aria-label="Document file"
              accept={DOCUMENT_ACCEPT}
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) void submit({ kind: "file", file }, () => fileInput.current && (fileInput.current.value = ""));
              }}
            />
          </TabsContent>
          <TabsContent value="url" className="pt-2">
            <form className="grid gap-2" onSubmit={(e) => (e.preventDefault(), void submit({ kind: "url", url, refresh }, () => setUrl("")))}>
              <Input aria-label="Document URL" placeholder="https://example.com/faq" value={url} onChange={(e) => setUrl(e.target.value)} />
              <label className="flex items-center gap-2 text-sm">
                Fetch again
                <select aria-label="Fetch again" className="rounded-md border bg-background px-2 py-1" value={refresh} onChange={(e) => setRefresh(e.target.value as typeof refresh)}>
                  <option value="never">never</option>
                  <option value="daily">every day</option>
                  <option value="weekly">every week</option>
                </select>
              </label>
              <Button type="submit" disabled={!url.trim() || add.isPending}>
                Add URL
              </Button>
            </form>
          </TabsContent>
          <TabsContent value="paste" className="pt-2">
            <form className="grid gap-2" onSubmit={(e) => (e.preventDefault(), void submit({ kind: "text", name: pasteName, text: pasteText }, () => (setPasteName(""), setPasteText(""))))}>
              <Input aria-label="Document name" placeholder="Name, e.g. Returns policy" value={pasteName} onChange={(e) => setPasteName(e.target.value)} />
              <Textarea aria-label="Document text" rows={6} value={pasteText} onChange={(e) => setPasteText(e.target.value)} />
              <Button type="submit" disabled={!pasteName.trim() || !pasteText.trim() || add.isPending}>
                Add text
              </Button>
            </form>
          </TabsContent>
        </Tabs>
      )}

      <input
        ref={replaceInput}
        type="file"
        className="hidden"
        aria-hidden="true"
        tabIndex={-1}
        accept={DOCUMENT_ACCEPT}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file && replacing) void run(replacing, "replace", file);
          e.target.value = "";
        }}
      />
      <ul aria-label="Documents" className="grid gap-2">
        {docs.data?.length === 0 && <li className="text-sm text-muted-foreground">No documents yet.</li>}
        {docs.data?.map((d) => (
          <li key={d.id} className="flex flex-wrap items-center justify-between gap-2 rounded-md border px-3 py-2 text-sm">
            <div className="grid gap-0.5">
              <span className="font-medium">{d.name}</span>
              <span className="flex items-center gap-2 text-xs text-muted-foreground">
                <Badge variant={d.status === "failed" ? "destructive" : d.status === "ready" ? "secondary" : "outline"}>{stateText(d)}</Badge>
                {d.url && d.refresh !== "never" && <span>fetched {d.refresh}{d.last_fetched_at ? `, last ${new Date(d.last_fetched_at).toLocaleString()}` : ""}</span>}
              </span>
              {d.error && <span className="text-xs text-destructive">{d.error}</span>}
            </div>
            {canBuild && (
              <div className="flex gap-1">
                <Button variant="ghost" size="sm" aria-label={`Re-process ${d.name}`} onClick={() => void run(d, "reprocess")}>
                  <RefreshCw />
                </Button>
                {d.source === "upload" && (
                  <Button variant="ghost" size="sm" aria-label={`Replace ${d.name}`} onClick={() => (setReplacing(d), replaceInput.current?.click())}>
                    <Replace />
                  </Button>
                )}
                <Button variant="ghost" size="sm" aria-label={`Delete ${d.name}`} onClick={() => void run(d, "delete")}>
                  <Trash2 />
                </Button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
